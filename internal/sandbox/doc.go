// Package sandbox confines the bash tool's commands with the kernel: on
// Linux, a Landlock ruleset under which a command may write only beneath a
// few roots and, optionally, may not open TCP connections. Parsing a shell
// can never be complete; the kernel enforces what the permission rules mean
// whatever the command line does (eval, variables, a script written and run,
// a compiler's output).
//
// # How a command is confined
//
// A Landlock domain applies to the thread that creates it and to everything
// that thread later starts, and it cannot be lifted. toolhost must stay
// unrestricted (it writes its session store, saved outputs, caches), so the
// restriction happens in a child: Command builds an *exec.Cmd that
// re-executes the current binary (os.Executable) with a marker; the child
// recognises the marker in this package's init function, restricts itself
// with github.com/landlock-lsm/go-landlock (maintained by Landlock's
// author, handles every ABI version and the multi-threaded Go runtime),
// then replaces itself with the shell (execve). The shell and everything
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
// command's own exit status.
//
// # What is writable
//
// Only write-type rights are handled (write, truncate, create, remove,
// rename/link across directories), so reading and executing stay open
// everywhere, as the issue asks. A Policy names the writable roots (the
// project, the temporary directory, toolchain caches, devices such as
// /dev/null, directories external_directory rules allow, sandbox.writable)
// and the protected directories (toolhost's data and cache directories).
// Plan resolves both (symbolic links followed, missing roots skipped) and
// computes what is granted.
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
// # Network
//
// Policy.Network false handles Landlock's TCP bind and connect rights
// (ABI 4, Linux 6.7) and grants no port, so both are refused. On an older
// kernel that policy cannot be enforced and the helper refuses to run the
// command rather than silently running it with the network open.
// Multipath TCP, UDP and UNIX sockets are not covered by Landlock's TCP
// rights.
//
// # Elsewhere
//
// On other systems, and on Linux without Landlock, Available reports why and
// Command is not used; the bash tool then runs commands under the
// permission rules alone, and toolhost warns once at start.
//
// This package imports nothing from toolhost.
package sandbox
