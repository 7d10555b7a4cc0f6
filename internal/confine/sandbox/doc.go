// Package sandbox confines the bash tool's commands with the kernel: on
// Linux, a Landlock ruleset under which a command may write only beneath a
// few roots, may not read credential locations (and, optionally, anything
// outside a few roots), may signal only its own processes and, optionally,
// may not use the network (Landlock plus a seccomp filter). Parsing a shell
// can never be complete; the kernel enforces what the permission rules mean
// whatever the command line does (eval, variables, a script written and run,
// a compiler's output).
//
// # How a command is confined
//
// A Landlock domain applies to the thread that creates it and to everything
// that thread later starts, and it cannot be lifted. toolhost must stay
// unrestricted (it writes its session store, saved outputs, caches), so the
// restriction happens in a child. On linux/amd64 Start forks the command
// and the child confines itself with system calls prepared beforehand,
// made by a few lines of assembly (vforkSteps, forked_linux.go): no helper
// process, no message, and the plan's ruleset built once per plan by
// toolhost. Elsewhere helpers do it, as follows. Command builds an *exec.Cmd that
// re-executes the current binary (os.Executable) with a marker; the child
// recognises the marker in this package's init function, restricts the
// thread that will execute the shell (restrictThread: the raw Landlock
// calls of github.com/landlock-lsm/go-landlock's syscall package, then
// no_new_privs and the socket filter on that thread; execve keeps them and
// ends the other threads, which only ever ran the Go runtime), then
// replaces itself with the shell (execve). The zygote (below), which
// starts many commands, restricts every thread of its own with
// go-landlock (maintained by Landlock's author; handles every ABI version
// and the multi-threaded Go runtime). The shell and everything
// it starts inherit the domain; the parent is never restricted.
//
// Dispatching in init means every binary that links the bash tool —
// toolhost, `go test` binaries, an embedder's program — can re-execute
// itself without its main or TestMain calling anything. A normal invocation
// cannot be mistaken for the helper: the helper needs argv[1] to be
// HelperArg and the environment variable HelperEnv to hold helperVersion,
// both set only by Command; and what the helper does is only to restrict
// itself further, so a forged invocation gains nothing. The helper removes
// HelperEnv before it execs the shell, so the marker never reaches the
// command. It reports a failure to restrict (the policy cannot be enforced
// on this kernel, a root cannot be opened) on a status pipe (file
// descriptor 3, close-on-exec) and exits without running the shell: the
// call fails closed and the parent can tell a sandbox failure from the
// command's own exit status. The parent computes the plan (below) and
// passes it in argv (through a pipe when it is too long for one argument);
// CachedPlan makes it once per host and again only when a directory it was
// computed from changes, and keeps it for later processes in toolhost's
// cache directory (Policy.PlanDir, plankeep.go), which no command can
// write: `toolhost call bash` then checks the stamps instead of reading
// the home directory again (and reads the kept plans while it loads its
// config: PreloadPlans). The plan travels to a helper in a line format
// (helperArgs), which a helper decodes in microseconds.
//
// # The zygote
//
// Re-executing a binary of toolhost's size costs tens of milliseconds
// (package initialisation of everything linked), far more than a command.
// Start therefore keeps, per plan, a zygote: the helper program (below) or
// the binary re-executed once with ZygoteArg, which receives its plan over a control socket (a
// SOCK_SEQPACKET pair on fd 3), restricts itself exactly as the helper
// does, and then starts commands sent to it — argv, environment and
// working directory on a per-command stream socket, the three standard
// files by SCM_RIGHTS (received close-on-exec). It answers with the
// command's pid, then its wait status. Each command is started from a
// goroutine locked to a thread that first enters a Landlock domain nested
// in the zygote's, adding the signal scope (and the abstract socket scope
// when the network is off); the thread is never unlocked, so it ends
// with the goroutine and no other work runs in that domain. A command
// therefore cannot signal or trace the zygote or other commands, as
// commands of separate helpers could not signal each other. What Landlock
// does not govern — prlimit and setpriority on the zygote — the zygote
// checks before each command: changed, it refuses and exits, and the
// parent starts a fresh one. The parent never falls back to running a
// command unconfined: a zygote that cannot start, restrict itself or
// answer is replaced once, then the command fails with a *HelperError.
// Without scopes (ABI below 6) Start uses the per-command helper.
//
// # The one-shot helper
//
// A process that will run one command (`toolhost call bash`) calls
// Prestart, which starts a per-command helper before the plan is known
// (oneshot_linux.go): while toolhost loads its config, the helper's
// program starts and waits on its control socket. Start then sends it the
// plan, the command and its three standard files; it confines the thread
// that becomes the command as the per-command helper does, answers
// programOK and executes the command, whose process is the helper's own.
// So the command pays no program start, and none of the zygote's second
// round trip, nested thread, all-thread restriction and fork. It refuses
// when its resource limits or priority changed while it waited, and a
// helper that ends before answering (another build's program) leaves
// Start to confine the command the usual way.
//
// # The helper program
//
// Re-executing toolhost still costs its runtime start and the package
// initialisation of everything it links, for each zygote and, where there
// is no zygote, for each command; `toolhost call bash` runs one command and
// pays it every time. cmd/toolhost-sandbox (HelperName) is this package
// alone as a program of its own (a few MB, started in about a millisecond)
// and is shipped beside toolhost (archives, image, install.sh). When one
// is in the directory of the running executable, Start runs it as the
// zygote and as the per-command helper instead of this binary. It is
// trusted as far as toolhost is, and no further (trustedProgram): a
// regular file, not a link, with toolhost's owner, writable by no one
// toolhost is not writable by — whoever could replace it could replace
// toolhost. And it must be the same sandbox code: HelperEnv then carries
// helperVersion and an identity (a hash of this package's source, the Go
// release and the versions of the modules it links, computed by each
// side), and the program acts only on its own identity. Another build's
// program runs nothing: it answers programMismatch on the status pipe (a
// zygote ends without answering its plan), as does anything that is no
// helper (no answer), and toolhost re-executes itself as before, for the
// rest of the process. The per-command program also confirms its
// confinement (programOK) before it executes the shell. No path leads
// from a missing, untrusted or mismatched program to an unconfined command.
//
// # What is writable
//
// Write-type rights are handled (write, truncate, create, remove,
// rename/link across directories). A Policy names the writable roots (the
// project, the temporary directory, toolchain caches, devices such as
// /dev/null, directories external_directory rules allow, sandbox.writable)
// and the protected directories (toolhost's data and cache directories).
// Plan resolves both (symbolic links followed, missing roots skipped) and
// computes what is granted. A protected or hidden location named through
// a link is protected by its name as well as where the link leads, so a
// link on the way that lies in a writable root is carved around: no
// command can retarget it (and have toolhost keep its plans, or look for
// a credential, in a directory of the command's).
//
// Landlock can only add rights, never subtract them beneath a granted
// directory, so a protected directory inside a writable root cannot simply
// be excluded. Plan carves instead: it grants the root's entries one by one,
// except the entry leading to the protected directory, into which it
// descends and repeats. The consequence, accepted and reported by `toolhost
// doctor`: in a directory on the way from a root to a protected directory
// (say ~/.cache when ~/.cache/toolhost is protected), existing entries stay
// writable but new top-level entries cannot be created. A root that is the
// protected directory or lies inside it is not granted at all.
//
// # What is readable
//
// Reading files and listing directories are handled too; executing is not
// (but the kernel opens a program for reading, so one outside the readable
// roots does not run). Policy.Hidden are the credential locations
// (Credentials, EnvSecrets), never readable nor writable: Plan carves the
// readable roots around them as it carves the writable ones around
// toolhost's state, and adds them to the protected locations, so a command
// cannot rename one to a name that is not hidden. Carved read directories
// get the listing right, which Landlock grants for the whole hierarchy:
// names beneath them can be listed, hidden files not read. Without
// Policy.ConfineReads the readable root is /; with it, Readable (system
// directories and toolchains, ReadRoots) and the writable roots.
//
// # Network and signals
//
// With Landlock ABI 6 a command may signal only processes of its own
// domain (LANDLOCK_SCOPE_SIGNAL): not toolhost, not the user's programs.
// Policy.Network false handles Landlock's TCP bind and connect rights
// (ABI 4) and grants no port, scopes abstract UNIX sockets (ABI 6), and
// installs a seccomp filter (seccomp_linux.go) for what Landlock cannot
// judge: IPv4 and IPv6 sockets whole (a listen without bind picks a port
// Landlock never sees), the other families, and io_uring. On an older kernel or an architecture the
// filter does not know, that policy cannot be enforced and the helper
// refuses to run the command rather than silently running it with the
// network open.
//
// # Elsewhere
//
// On other systems, and on Linux without Landlock, Available reports why and
// Command is not used; the bash tool then runs commands under the
// permission rules alone, and toolhost warns once at start.
//
// This package imports nothing from toolhost.
package sandbox
