package shellperm

// The bash analysis's knowledge of commands, kept as data so that a new
// wrapper or a new dangerous variable is a line here, not a new branch in
// the analysis. Every table errs on the side of asking: a wrapper option
// that is not listed makes the wrapped command unresolvable, never guessed.

// wrapperSpec describes a command that runs another command given as its
// remaining arguments (`env FOO=1 rm f`, `timeout 5 make`, `xargs rm`).
type wrapperSpec struct {
	// flags are short options without an argument; withArg are short
	// options that take one ("-n 5" or "-n5").
	flags, withArg string
	// long and longWithArg are the same for "--name" options
	// ("--name=value" is always one word); longOptArg take a value only
	// as "--name=value" (xargs --replace: "--replace rm" runs rm).
	long, longWithArg, longOptArg []string
	// unset are the short options whose argument names a variable to
	// remove (env -u).
	unset string
	// replace are the short options whose argument is a string replaced
	// in the command by input (xargs -I{}): words holding it are holes.
	replace string
	// splitPayload: the payload is split into words by the wrapper's own
	// rules and run with the remaining words (env -S), not by a shell.
	splitPayload bool
	// numeric accepts "-5" style options (nice).
	numeric bool
	// positional is how many operands come before the command (timeout's
	// duration, taskset's mask, flock's file, chroot's directory).
	positional int
	// assignments: NAME=VALUE words before the command set its
	// environment (env).
	assignments bool
	// noRun are short options with which the command is only looked up,
	// not run (command -v).
	noRun string
	// argv0 are short options whose argument is the name the command is
	// run under (exec -a): a multi-call program (busybox, toybox) picks
	// what it does by that name, so the command is asked under it too.
	argv0 string
	// payload are short options whose argument is itself a command line
	// (env -S, su -c, flock -c, script -c).
	payload string
	// appends: the wrapper adds arguments of its own to the command
	// (xargs), so the command's pattern ends in a Hole.
	appends bool
	// implicit is the command run when none is given (xargs runs echo);
	// "" means nothing is run.
	implicit string
}

// bashWrappers are the wrappers the analysis unwraps. The wrapper itself is
// a request too, so an allow list must allow both.
var bashWrappers = map[string]wrapperSpec{
	"command":   {flags: "pvV", noRun: "vV"},
	"builtin":   {},
	"exec":      {flags: "cl", withArg: "a", argv0: "a"},
	"env":       {flags: "i0v", withArg: "uCS", long: []string{"--ignore-environment", "--null", "--debug"}, longWithArg: []string{"--unset", "--chdir", "--split-string"}, assignments: true, payload: "S", unset: "u", splitPayload: true},
	"nice":      {withArg: "n", longWithArg: []string{"--adjustment"}, numeric: true},
	"nohup":     {},
	"timeout":   {flags: "v", withArg: "sk", long: []string{"--preserve-status", "--foreground", "--verbose"}, longWithArg: []string{"--signal", "--kill-after"}, positional: 1},
	"time":      {flags: "pvaq", withArg: "fo", long: []string{"--portability", "--verbose", "--append", "--quiet"}, longWithArg: []string{"--format", "--output"}},
	"stdbuf":    {withArg: "ioe", longWithArg: []string{"--input", "--output", "--error"}},
	"xargs":     {flags: "0prtxo", withArg: "aEdILnPs", long: []string{"--null", "--no-run-if-empty", "--interactive", "--verbose", "--exit", "--open-tty"}, longWithArg: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}, longOptArg: []string{"--replace", "--eof", "--max-lines"}, appends: true, implicit: "echo", replace: "I"},
	"sudo":      {assignments: true, flags: "AbEHKknPSBN", withArg: "CDghpRrTUu", long: []string{"--askpass", "--background", "--preserve-env", "--set-home", "--non-interactive", "--stdin", "--bell"}, longWithArg: []string{"--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type", "--command-timeout", "--other-user", "--user"}},
	"doas":      {flags: "nL", withArg: "uC"},
	"setsid":    {flags: "cfw", long: []string{"--ctty", "--fork", "--wait"}},
	"ionice":    {flags: "t", withArg: "cnp", long: []string{"--ignore"}, longWithArg: []string{"--class", "--classdata", "--pid"}},
	"taskset":   {flags: "ac", long: []string{"--all-tasks", "--cpu-list"}, positional: 1},
	"flock":     {flags: "snuxoeF", withArg: "wEc", long: []string{"--shared", "--nonblock", "--unlock", "--exclusive", "--close", "--no-fork"}, longWithArg: []string{"--timeout", "--conflict-exit-code", "--command"}, positional: 1, payload: "c"},
	"chroot":    {longWithArg: []string{"--userspec", "--groups"}, long: []string{"--skip-chdir"}, positional: 1},
	"unbuffer":  {flags: "p"},
	"fakeroot":  {},
	"eatmydata": {},
	"busybox":   {},
	"toybox":    {},
	"strace":    {flags: "fFqrtTvVxyCcdhikwZ", withArg: "eoOpPsSuXbEI"},
	"ltrace":    {flags: "fhiLrStTVC", withArg: "eoplnsuaADFxw"},
	"watch":     {flags: "bcdegpt", withArg: "nqs", long: []string{"--beep", "--color", "--differences", "--errexit", "--chgexit", "--precise", "--no-title", "--no-wrap", "--exec"}, longWithArg: []string{"--interval", "--equexit", "--shell"}},
}

// shellRunners run a shell, not a command given as words: its command line
// is the -c option's value (su -c, script -c), their operands are a user
// (su) or the file the session is written to (script), and without -c the
// shell reads its commands from standard input, which cannot be known.
// flags are options without a value, withArg those with one; any other
// option, and -s (su's shell), make the command unresolvable.
var shellRunners = map[string]wrapperSpec{
	"su":     {flags: "lmpPf", withArg: "cgGw", long: []string{"--login", "--preserve-environment", "--pty"}, longWithArg: []string{"--command", "--group", "--supp-group", "--whitelist-environment"}},
	"script": {flags: "aeEfqT", withArg: "cIOBt", long: []string{"--append", "--flush", "--quiet", "--return"}, longWithArg: []string{"--command", "--log-in", "--log-out", "--log-io", "--log-timing", "--timing", "--echo"}},
}

// watchJoins: watch hands its operands to `sh -c` joined by spaces (unless
// -x), so its command is a command line, not a word list.
const watchCommand = "watch"

// shellInterpreters are the commands whose -c payload is itself a command
// line, parsed so every command inside it needs permission too. Run without
// -c and without a script, they read commands from standard input, which
// cannot be known in advance.
var shellInterpreters = []string{"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "yash", "posh"}

// nameBuiltins are the builtins whose arguments name shell variables. A name
// with a subscript (a[...]) is evaluated as arithmetic, which can run code
// held in a variable, and a name that is a dangerous variable changes what
// later programs execute.
var nameBuiltins = map[string]bool{
	"read": true, "mapfile": true, "readarray": true, "unset": true, "getopts": true,
	"printf": true, "wait": true, "test": true, "[": true, "export": true, "declare": true,
	"typeset": true, "local": true, "readonly": true, "let": true, "shift": false,
}

// declBuiltins declare variables: besides names with subscripts, their -n
// (nameref) and -i (integer: later assignments are arithmetic) options
// evaluate text.
var declBuiltins = map[string]bool{"declare": true, "typeset": true, "local": true, "export": true, "readonly": true}

// evalBuiltins run their argument text as shell code: eval joins its
// arguments; trap and alias take code as an argument.
var evalBuiltins = map[string]bool{"eval": true, "trap": true, "alias": true}

// opaqueCommands run code that cannot be read from the command line:
// hash -p makes a name run another program, enable -f loads a shared
// object, compgen/complete -C run a command string later, mapfile -C runs a
// callback, fc re-executes history. With these options the command is
// unresolvable.
var opaqueCommands = map[string]string{
	"hash":      "p",
	"enable":    "f",
	"compgen":   "CF",
	"complete":  "CF",
	"mapfile":   "C",
	"readarray": "C",
	"fc":        "es",
	"source":    "",
	".":         "",
}

// expandedOptions are the options whose value the shell expands again
// when the builtin runs (compgen -W's word list: "$(cmd)" in it runs
// cmd): a value with an expansion in it, or not fixed text, makes the
// command one Hole.
var expandedOptions = map[string]string{
	"compgen":  "W",
	"complete": "W",
}

// promptVariables are expanded (parameters, arithmetic, command
// substitution) every time bash shows them: PS4 before each command under
// set -x, the others in interactive shells. A value with an expansion in
// it runs code; PROMPT_COMMAND is a command line.
var promptVariables = map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true}

// scriptInterpreters run a script file named among their operands,
// which the command line itself may have written. (awk -f and sed -f
// are holes of their own.)
var scriptInterpreters = []string{
	"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "Rscript", "tclsh", "wish",
	"bun", "deno", "tsx", "ts-node",
}

// codeEnv are the dangerous variables whose value is a command line a
// program runs (asked as that command, so a deny list's "touch *" denies
// GIT_SSH_COMMAND='touch p'), or names code, options or configuration
// that run commands (a Hole). Names are wildcard patterns; the first
// match wins.
var codeEnv = []struct {
	pattern string
	option
}{
	{"GIT_SSH_COMMAND", option{runsShell, "git runs this command line instead of ssh"}},
	{"GIT_EXTERNAL_DIFF", option{runsShell, "git diff runs this program"}},
	{"GIT_PAGER", option{runsShell, "git runs its pager with sh -c"}},
	{"GIT_EDITOR", option{runsShell, "git runs its editor with sh -c"}},
	{"GIT_SEQUENCE_EDITOR", option{runsShell, "git runs its editor with sh -c"}},
	{"GIT_ASKPASS", option{runsShell, "git runs this program for passwords"}},
	{"GIT_PROXY_COMMAND", option{runsShell, "git runs this proxy command"}},
	{"GIT_SSH", option{runsShell, "git runs this program instead of ssh"}},
	{"PAGER", option{runsShell, "programs run their pager with sh -c"}},
	{"MANPAGER", option{runsShell, "man runs this pager with sh -c"}},
	{"SYSTEMD_PAGER", option{runsShell, "systemd tools run this pager"}},
	{"EDITOR", option{runsShell, "programs run the editor with sh -c"}},
	{"VISUAL", option{runsShell, "programs run the editor with sh -c"}},
	{"SYSTEMD_EDITOR", option{runsShell, "systemd tools run this editor"}},
	{"SUDO_EDITOR", option{runsShell, "sudoedit runs this editor"}},
	{"FCEDIT", option{runsShell, "fc runs this editor"}},
	{"SSH_ASKPASS", option{runsShell, "ssh runs this program for passwords"}},
	{"SUDO_ASKPASS", option{runsShell, "sudo runs this program for passwords"}},
	{"BROWSER", option{runsShell, "programs run this browser"}},
	{"RSYNC_RSH", option{runsShell, "rsync runs this remote shell"}},
	{"RSYNC_CONNECT_PROG", option{runsShell, "rsync runs this command to connect"}},
	{"LESSOPEN", option{runsUnknown, "less runs this input preprocessor on every file it opens"}},
	{"LESSCLOSE", option{runsUnknown, "less runs this postprocessor"}},
	{"GIT_CONFIG*", option{runsUnknown, "git configuration from the environment can name commands (core.fsmonitor, alias.*)"}},
	{"GIT_EXEC_PATH", option{runsUnknown, "git runs its subcommands from this directory"}},
	{"GIT_DIR", option{runsUnknown, "the repository's configuration and hooks can name commands"}},
	{"BASH_ENV", option{runsUnknown, "bash runs this file before a script"}},
	{"ENV", option{runsUnknown, "sh runs this file at start-up"}},
	{"LD_PRELOAD", option{runsUnknown, "every program loads this library"}},
	{"LD_AUDIT", option{runsUnknown, "every program loads this library"}},
	{"TAR_OPTIONS", option{runsUnknown, "tar reads options, --to-command among them, from this variable"}},
	{"ZIPOPT", option{runsUnknown, "zip reads options, -TT among them, from this variable"}},
	{"MANOPT", option{runsUnknown, "man reads options, -P among them, from this variable"}},
	{"LESS", option{runsUnknown, "less reads options, +!cmd among them, from this variable"}},
	{"NODE_OPTIONS", option{runsUnknown, "node reads options, --require among them, from this variable"}},
	{"PERL5OPT", option{runsUnknown, "perl reads options, -M among them, from this variable"}},
	{"PYTHONSTARTUP", option{runsUnknown, "python runs this file at start-up"}},
}

// pathCommands are the commands whose operands are paths that are checked
// against the project (external_directory): those that change directory,
// create, move, remove, write or change files, and the common readers.
// Other commands are governed by their bash pattern and, for writes, by the
// kernel sandbox.
var pathCommands = map[string]bool{
	"cd": true, "pushd": true, "rm": true, "rmdir": true, "unlink": true, "shred": true,
	"cp": true, "mv": true, "ln": true, "install": true, "mkdir": true, "touch": true,
	"truncate": true, "chmod": true, "chown": true, "chgrp": true, "tee": true,
	"cat": true, "head": true, "tail": true, "source": true, ".": true,
}

// dangerousEnv are the variables that change what other programs execute
// or which files they load: setting one, by any means, is a request of its
// own (pattern "export NAME=VALUE"), never covered by an allow for the
// command it precedes. Names are wildcard patterns.
var dangerousEnv = []string{
	"PATH", "IFS", "CDPATH", "HOME", "XDG_CONFIG_HOME", "SHELL", "TMPDIR",
	"BASH_ENV", "ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4",
	"SHELLOPTS", "BASHOPTS", "GLOBIGNORE", "BASH_FUNC_*", "BASH_XTRACEFD", "BASH_LOADABLES_PATH",
	// BASH_CMDS is the command hash table (BASH_CMDS=(ls /bin/rm) makes ls
	// run rm), BASH_ALIASES the alias table; EXECIGNORE hides programs
	// from the PATH search; HISTFILE is where `history -w` writes;
	// BASH_COMPAT and POSIXLY_CORRECT change how later lines parse;
	// TEXTDOMAIN and TEXTDOMAINDIR choose what $"..." translates to.
	"BASH_CMDS", "BASH_ALIASES", "EXECIGNORE", "HISTFILE", "BASH_COMPAT", "POSIXLY_CORRECT", "TEXTDOMAIN", "TEXTDOMAINDIR",
	"GIT_*", "LD_*", "DYLD_*", "GCONV_PATH", "HOSTALIASES", "LOCALDOMAIN", "RESOLV_HOST_CONF",
	"NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE", "NPM_CONFIG_*", "npm_config_*", "YARN_*", "BUN_*", "DENO_*",
	"PYTHON*", "PIP_*", "VIRTUAL_ENV", "CONDA_*",
	"PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "PERL_*",
	"RUBYOPT", "RUBYLIB", "GEM_*", "BUNDLE_*",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTS", "CLASSPATH", "MAVEN_OPTS", "GRADLE_OPTS",
	"GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "GOENV", "CGO_CFLAGS*", "CGO_CPPFLAGS*", "CGO_CXXFLAGS*", "CGO_FFLAGS*", "CGO_LDFLAGS*", "CC", "CXX", "CPP", "LD", "AR",
	"RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTFLAGS", "RUSTDOCFLAGS", "CARGO_*",
	"MAKEFLAGS", "MAKE", "MAKEFILES", "CMAKE_*",
	"EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "LESSOPEN", "LESSCLOSE", "LESSKEY",
	"SSH_ASKPASS", "SUDO_ASKPASS", "SSH_AUTH_SOCK", "DOCKER_HOST", "KUBECONFIG",
	"OPENSSL_CONF", "OPENSSL_ENGINES", "SSL_CERT_FILE", "CURL_HOME", "WGETRC",
	"TERMINFO", "TERMINFO_DIRS", "INPUTRC", "MAIL", "MAILPATH",
	// Options read from the environment by the programs of
	// programSpecs: TAR_OPTIONS can hold --to-command, ZIPOPT -TT,
	// MANOPT -P, LESS +!cmd; RSYNC_RSH is rsync -e and
	// RSYNC_CONNECT_PROG a command rsync runs; AWKPATH and AWKLIBPATH
	// choose the files gawk includes and loads; EXINIT and VIMINIT are
	// editor commands.
	"TAR_OPTIONS", "ZIPOPT", "UNZIP", "UNZIPOPT", "MANOPT", "LESS", "RSYNC_RSH", "RSYNC_CONNECT_PROG",
	"AWKPATH", "AWKLIBPATH", "EXINIT", "VIMINIT", "MYVIMRC", "SYSTEMD_PAGER", "SYSTEMD_EDITOR", "SUDO_EDITOR", "FCEDIT",
}
