package shellperm

// The programs that run other programs, or write files, through their
// options and program texts, kept as data beside bash_data.go's tables. An
// allow rule for a program ("awk *", "tar *", "git *") grants what the
// program does with data, not what it can be told to run: tar
// --to-command, awk's system(), git -c alias.x='!cmd' and their kind each
// make the command they run a request of its own (bash_program.go), asked
// as that command when it is fixed text and as a Hole when it is not.

// effect is what an option's value does.
type effect uint8

const (
	// takesValue: a value that runs nothing and writes nothing.
	takesValue effect = iota + 1
	// noValue: a flag.
	noValue
	// runsShell: the value is a command line the program hands to sh -c.
	runsShell
	// runsProgram: the value is a program and its first arguments; the
	// program adds arguments of its own.
	runsProgram
	// runsFile: the value names a file whose content is code, a
	// configuration that can name programs, or a directory of programs:
	// what runs cannot be known from the command line.
	runsFile
	// runsUnknown: with this option, what runs cannot be known.
	runsUnknown
	// writesFile: the value names a file the program writes.
	writesFile
	// programText: the value is program text in the program's language
	// (awk -e, sed -e), scanned like the operand.
	programText
	// writesOperands: the program rewrites its file operands (sed -i); the
	// value, when attached, is a backup suffix.
	writesOperands
	// sshOption: an ssh_config "Key=Value" (ssh -o), judged by sshKeys.
	sshOption
	// gitConfig: a git "name=value" (git -c), judged by gitConfigKeys.
	gitConfig
	// gitConfigEnv: git --config-env name=ENVVAR: the value comes from
	// the environment.
	gitConfigEnv
	// checkpointAction: tar --checkpoint-action, which runs its exec=
	// action with sh -c.
	checkpointAction
	// pipeOrWrite: a file written, or, when the value starts with | or !,
	// a command line its output is piped to (strace -o).
	pipeOrWrite
	// lessCommands: less's +cmd, typed as keystrokes at start-up.
	lessCommands
	// extracts: the program writes files it reads from an archive into
	// its directory (tar -x).
	extracts
	// changesDir: the value is the directory the program works in
	// (tar -C).
	changesDir
)

// option is one option of a program: what its value does, and why that
// matters (shown by `toolhost permissions explain`).
type option struct {
	effect effect
	why    string
}

// programSpec describes how a program runs other programs or writes
// files through its arguments.
type programSpec struct {
	// options are keyed by the option as written: "-I" (a short option,
	// also found inside "-xI…" bundles) or "--to-command" (a long one,
	// also matched by the unambiguous abbreviations getopt accepts).
	options map[string]option
	// strict: options are parsed one by one, so an option that is not in
	// options makes the command a Hole. Needed where the first operand is
	// program text (awk, sed): only knowing every option finds it.
	// Otherwise every word is scanned for the options listed, wherever it
	// stands, which errs towards asking (a listed option's name that is
	// another option's value is judged as the option).
	strict bool
	// language scans program text: the first operand, unless an option
	// gave the program (programText or runsFile).
	language func(text string) (effects []langEffect, ok bool)
	// always: every invocation is a Hole (the program reads commands from
	// standard input or an interactive session), with this reason.
	always string
	// stopAtOperand: options end at the first operand, which starts the
	// command the program runs (strace, time), judged by the wrappers
	// table.
	stopAtOperand bool
	// assignments are operands of the form key=value (dd of=file).
	assignments map[string]option
	// oldStyle: a first argument without a dash is a bundle of options
	// whose values are the following words (tar cIf prog a.tgz).
	oldStyle bool
	// custom handles the rest: git's subcommands, find's actions.
	custom func(a *analyzer, outer string, args []token, depth int)
}

const (
	whyAwkFile  = "awk runs the program in this file, which cannot be read before it runs"
	whySedFile  = "sed runs the script in this file, which cannot be read before it runs"
	whyGawkLoad = "gawk loads this extension or source file, which cannot be read before it runs"
)

var awkOptions = map[string]option{
	"-F": {takesValue, ""}, "--field-separator": {takesValue, ""},
	"-v": {takesValue, ""}, "--assign": {takesValue, ""},
	"-f": {runsFile, whyAwkFile}, "--file": {runsFile, whyAwkFile},
	"-E": {runsFile, whyAwkFile}, "--exec": {runsFile, whyAwkFile},
	"-e": {programText, ""}, "--source": {programText, ""},
	"-i": {runsFile, whyGawkLoad}, "--include": {runsFile, whyGawkLoad},
	"-l": {runsFile, whyGawkLoad}, "--load": {runsFile, whyGawkLoad},
	// mawk's -W takes a word of its own: -W exec file, -W version …
	"-W": {runsUnknown, "mawk's -W options include exec FILE, a program file"},
	"-b": {noValue, ""}, "--characters-as-bytes": {noValue, ""},
	"-c": {noValue, ""}, "--traditional": {noValue, ""},
	"-C": {noValue, ""}, "--copyright": {noValue, ""},
	"-g": {noValue, ""}, "--gen-pot": {noValue, ""},
	"-M": {noValue, ""}, "--bignum": {noValue, ""},
	"-N": {noValue, ""}, "--use-lc-numeric": {noValue, ""},
	"-n": {noValue, ""}, "--non-decimal-data": {noValue, ""},
	"-O": {noValue, ""}, "--optimize": {noValue, ""},
	"-P": {noValue, ""}, "--posix": {noValue, ""},
	"-r": {noValue, ""}, "--re-interval": {noValue, ""},
	"-s": {noValue, ""}, "--no-optimize": {noValue, ""},
	"-S": {noValue, ""}, "--sandbox": {noValue, ""},
	"-t": {noValue, ""}, "--lint-old": {noValue, ""},
	"-V": {noValue, ""}, "--version": {noValue, ""},
	"-h": {noValue, ""}, "--help": {noValue, ""},
	"--csv": {noValue, ""}, "-k": {noValue, ""},
}

var sedOptions = map[string]option{
	"-e": {programText, ""}, "--expression": {programText, ""},
	"-f": {runsFile, whySedFile}, "--file": {runsFile, whySedFile},
	"-i": {writesOperands, ""}, "--in-place": {writesOperands, ""},
	"-l": {takesValue, ""}, "--line-length": {takesValue, ""},
	"-n": {noValue, ""}, "--quiet": {noValue, ""}, "--silent": {noValue, ""},
	"-E": {noValue, ""}, "-r": {noValue, ""}, "--regexp-extended": {noValue, ""},
	"-s": {noValue, ""}, "--separate": {noValue, ""},
	"-u": {noValue, ""}, "--unbuffered": {noValue, ""},
	"-z": {noValue, ""}, "--null-data": {noValue, ""},
	"-b": {noValue, ""}, "--binary": {noValue, ""},
	"--posix": {noValue, ""}, "--debug": {noValue, ""}, "--sandbox": {noValue, ""},
	"--follow-symlinks": {noValue, ""}, "--help": {noValue, ""}, "--version": {noValue, ""},
}

const (
	whyTarShell = "tar runs this with sh -c"
	whySSHFile  = "this configuration file can name commands to run (ProxyCommand, LocalCommand, Match exec)"
)

var sshOptions = map[string]option{
	"-o": {sshOption, ""},
	"-F": {runsFile, whySSHFile},
	"-I": {runsFile, "ssh loads this PKCS#11 library"},
}

// programSpecs are the programs whose arguments can run other programs or
// write files. A program's own request stays as it is; what it runs, or
// writes, is added.
var programSpecs = map[string]programSpec{
	"awk": {options: awkOptions, strict: true, language: scanAwk}, "gawk": {options: awkOptions, strict: true, language: scanAwk},
	"mawk": {options: awkOptions, strict: true, language: scanAwk}, "nawk": {options: awkOptions, strict: true, language: scanAwk},
	"original-awk": {options: awkOptions, strict: true, language: scanAwk},
	"sed":          {options: sedOptions, strict: true, language: scanSed}, "gsed": {options: sedOptions, strict: true, language: scanSed},
	"tar": {oldStyle: true, options: map[string]option{
		"--checkpoint-action": {checkpointAction, ""},
		"--checkpoint":        {takesValue, ""}, // exact, so not an abbreviation of --checkpoint-action
		"-f":                  {takesValue, ""}, "--file": {takesValue, ""}, "-C": {changesDir, ""}, "--directory": {changesDir, ""},
		"--to-command":           {runsShell, whyTarShell + " for every file it extracts"},
		"-I":                     {runsShell, whyTarShell + " to compress or decompress"},
		"--use-compress-program": {runsShell, whyTarShell + " to compress or decompress"},
		"--rsh-command":          {runsProgram, "tar runs this program to reach a remote archive"},
		"--rmt-command":          {runsUnknown, "tar has the remote shell run this command on the archive's host, which may be this machine"},
		"-F":                     {runsShell, whyTarShell + " at the end of each volume"},
		"--info-script":          {runsShell, whyTarShell + " at the end of each volume"},
		"--new-volume-script":    {runsShell, whyTarShell + " at the end of each volume"},
		"-T":                     {runsFile, "tar reads options, not only names, from this file"},
		"--index-file":           {writesFile, ""}, "--volno-file": {writesFile, ""}, "-g": {writesFile, ""}, "--listed-incremental": {writesFile, ""},
		"-x": {extracts, ""}, "--extract": {extracts, ""}, "--get": {extracts, ""},
		"-P": {runsUnknown, "with --absolute-names tar extracts to any path the archive names"}, "--absolute-names": {runsUnknown, "with --absolute-names tar extracts to any path the archive names"},
		"--files-from": {runsFile, "tar reads options, not only names, from this file"},
	}},
	"ssh":  {options: sshOptions},
	"scp":  {options: map[string]option{"-o": {sshOption, ""}, "-F": {runsFile, whySSHFile}, "-S": {runsProgram, "scp runs this program instead of ssh"}}},
	"sftp": {always: "sftp reads its commands, ! shell escapes among them, from standard input or a batch file"},
	"rsync": {options: map[string]option{
		"-e": {runsProgram, "rsync runs this remote shell"}, "--rsh": {runsProgram, "rsync runs this remote shell"},
		"--rsync-path":    {runsShell, "rsync has the remote shell run this command line, which may be on this machine"},
		"-M":              {runsUnknown, "rsync passes these options to the other rsync, --rsync-path among them"},
		"--remote-option": {runsUnknown, "rsync passes these options to the other rsync, --rsync-path among them"},
		"--log-file":      {writesFile, ""}, "--write-batch": {writesFile, ""}, "--only-write-batch": {writesFile, ""},
		"--config": {runsFile, "an rsync daemon configuration can name commands to run"},
	}},
	"zip": {options: map[string]option{
		"-TT": {runsShell, "zip runs this command line to test the archive"}, "--unzip-command": {runsShell, "zip runs this command line to test the archive"},
	}},
	"sqlite3": {custom: (*analyzer).sqlite},
	"sort": {options: map[string]option{
		"--compress-program": {runsProgram, "sort runs this program to compress its temporary files"},
		"-o":                 {writesFile, ""}, "--output": {writesFile, ""},
	}},
	"less": {options: map[string]option{
		"+":                 {lessCommands, ""},
		"-k":                {runsFile, "a lesskey file can bind keys to shell commands"},
		"--lesskey-file":    {runsFile, "a lesskey file can bind keys to shell commands"},
		"--lesskey-src":     {runsFile, "a lesskey file can bind keys to shell commands"},
		"--lesskey-content": {runsUnknown, "lesskey content can bind keys to shell commands"},
		"-o":                {writesFile, ""}, "-O": {writesFile, ""}, "--log-file": {writesFile, ""}, "--LOG-FILE": {writesFile, ""},
	}},
	"man": {options: map[string]option{
		"-P": {runsShell, "man runs this pager with sh -c"}, "--pager": {runsShell, "man runs this pager with sh -c"},
		"-H": {runsUnknown, "man runs a browser, named here or by $BROWSER"}, "--html": {runsUnknown, "man runs a browser, named here or by $BROWSER"},
		"-C": {runsFile, "a man configuration file names the programs man runs"}, "--config-file": {runsFile, "a man configuration file names the programs man runs"},
	}},
	"git": {}, // custom: (*analyzer).git, set in init (it refers back to this table)
	"dd":  {assignments: map[string]option{"of": {writesFile, ""}}},
	"curl": {options: map[string]option{
		"-o": {writesFile, ""}, "--output": {writesFile, ""}, "--trace": {writesFile, ""}, "--trace-ascii": {writesFile, ""},
		"-D": {writesFile, ""}, "--dump-header": {writesFile, ""}, "-c": {writesFile, ""}, "--cookie-jar": {writesFile, ""},
		"-K": {runsFile, "a curl configuration file can name files to write"}, "--config": {runsFile, "a curl configuration file can name files to write"},
	}},
	"wget": {options: map[string]option{
		"-O": {writesFile, ""}, "--output-document": {writesFile, ""}, "-o": {writesFile, ""}, "--output-file": {writesFile, ""},
		"-a": {writesFile, ""}, "--append-output": {writesFile, ""},
		"--use-askpass": {runsProgram, "wget runs this program for passwords"},
		"-e":            {runsUnknown, "wget runs this .wgetrc command, which can name files and programs"}, "--execute": {runsUnknown, "wget runs this .wgetrc command, which can name files and programs"},
		"--config": {runsFile, "a wgetrc can name files and programs"},
	}},
	"make": {options: map[string]option{
		"-f": {runsFile, "make runs the recipes of this makefile"}, "--file": {runsFile, "make runs the recipes of this makefile"}, "--makefile": {runsFile, "make runs the recipes of this makefile"},
		"--eval": {runsUnknown, "make evaluates this as makefile text, $(shell …) included"}, "-E": {runsUnknown, "make evaluates this as makefile text, $(shell …) included"},
		"-I": {runsFile, "make includes makefiles from this directory"}, "--include-dir": {runsFile, "make includes makefiles from this directory"},
	}, assignments: map[string]option{"SHELL": {runsUnknown, "make runs every recipe with this shell"}, "MAKESHELL": {runsUnknown, "make runs every recipe with this shell"}, ".SHELLFLAGS": {runsUnknown, "make runs every recipe with these shell options"}}},
	"strace": {stopAtOperand: true, options: map[string]option{"-o": {pipeOrWrite, "strace pipes its output to this command line"}, "--output": {pipeOrWrite, "strace pipes its output to this command line"}}},
	"ltrace": {stopAtOperand: true, options: map[string]option{"-o": {writesFile, ""}, "--output": {writesFile, ""}}},
	"time":   {stopAtOperand: true, options: map[string]option{"-o": {writesFile, ""}, "--output": {writesFile, ""}}},
	"vi":     {always: whyEditor}, "vim": {always: whyEditor}, "nvim": {always: whyEditor}, "ex": {always: whyEditor},
	"view": {always: whyEditor}, "vimdiff": {always: whyEditor}, "rvim": {always: whyEditor}, "gvim": {always: whyEditor},
	"ed":       {always: "ed reads editor commands, ! shell escapes among them, from standard input"},
	"emacs":    {always: "emacs runs Lisp from its options (--eval, -l, -f, --script) and its init files"},
	"gdb":      {always: "gdb runs commands from its options (-ex, -x), its init files and standard input"},
	"parallel": {always: "parallel runs its arguments, and its input, as command lines with replacements"},
	"tmux":     {always: "tmux runs command lines in sessions and through its server"},
	// Programs that run the command in their arguments with options the
	// wrappers table does not read, or that run code of a language of
	// their own: every call is a hole, so a deny list still denies what
	// they run.
	"unshare": {always: whyRunsArgs}, "nsenter": {always: whyRunsArgs}, "systemd-run": {always: whyRunsArgs},
	"chrt": {always: whyRunsArgs}, "prlimit": {always: whyRunsArgs}, "firejail": {always: whyRunsArgs},
	"bwrap": {always: whyRunsArgs}, "runuser": {always: whyRunsArgs}, "sg": {always: whyRunsArgs},
	"setpriv": {always: whyRunsArgs}, "torsocks": {always: whyRunsArgs}, "proxychains": {always: whyRunsArgs},
	"proxychains4": {always: whyRunsArgs}, "valgrind": {always: whyRunsArgs}, "xvfb-run": {always: whyRunsArgs},
	"dbus-run-session": {always: whyRunsArgs}, "dbus-launch": {always: whyRunsArgs}, "ssh-agent": {always: whyRunsArgs},
	"pkexec": {always: whyRunsArgs}, "faketime": {always: whyRunsArgs}, "numactl": {always: whyRunsArgs},
	"cgexec": {always: whyRunsArgs}, "chpst": {always: whyRunsArgs}, "perf": {always: whyRunsArgs},
	// setarch and its names, SELinux's runcon, util-linux's choom and
	// uclampset, dpkg's start-stop-daemon, busybox's cttyhack, run-init
	// and switch_root, daemontools' and runit's runners, moreutils'
	// chronic, ifne, pee, mispipe and lckdo, and the dynamic loader
	// run as a program (ld.so /bin/touch x).
	"setarch": {always: whyRunsArgs}, "linux32": {always: whyRunsArgs}, "linux64": {always: whyRunsArgs},
	"x86_64": {always: whyRunsArgs}, "i386": {always: whyRunsArgs}, "uname26": {always: whyRunsArgs},
	"aarch64": {always: whyRunsArgs}, "arm64": {always: whyRunsArgs}, "runcon": {always: whyRunsArgs},
	"choom": {always: whyRunsArgs}, "uclampset": {always: whyRunsArgs}, "start-stop-daemon": {always: whyRunsArgs},
	"cttyhack": {always: whyRunsArgs}, "run-init": {always: whyRunsArgs}, "switch_root": {always: whyRunsArgs},
	"softlimit": {always: whyRunsArgs}, "envdir": {always: whyRunsArgs}, "envuidgid": {always: whyRunsArgs},
	"setuidgid": {always: whyRunsArgs}, "setlock": {always: whyRunsArgs}, "pgrphack": {always: whyRunsArgs},
	"fghack": {always: whyRunsArgs}, "chronic": {always: whyRunsArgs}, "ifne": {always: whyRunsArgs},
	"pee": {always: whyRunsArgs}, "mispipe": {always: whyRunsArgs}, "lckdo": {always: whyRunsArgs},
	"sshpass": {always: whyRunsArgs}, "rlwrap": {always: whyRunsArgs}, "daemonize": {always: whyRunsArgs},
	"nocache": {always: whyRunsArgs}, "trickle": {always: whyRunsArgs}, "tsocks": {always: whyRunsArgs},
	"catchsegv": {always: whyRunsArgs}, "openvt": {always: whyRunsArgs}, "ld.so": {always: whyRunsArgs},
	"ld-linux-x86-64.so.2": {always: whyRunsArgs}, "ld-linux.so.2": {always: whyRunsArgs},
	"ld-linux-aarch64.so.1": {always: whyRunsArgs}, "ld-linux-armhf.so.3": {always: whyRunsArgs},
	"ld-musl-x86_64.so.1": {always: whyRunsArgs}, "ld-musl-aarch64.so.1": {always: whyRunsArgs},
	"run-parts": {always: "run-parts runs every program in the directory it names"},
	"mim":       {always: "busybox mim runs the shell commands of its script file"},
	"hyperfine": {always: whyRunsArgs}, "entr": {always: whyRunsArgs}, "expect": {always: whyRunsArgs},
	"at": {always: "at runs the commands it reads later"}, "batch": {always: "batch runs the commands it reads later"},
	"crontab": {always: "crontab installs commands cron runs later"},
	"m4":      {always: "m4 runs commands through syscmd and esyscmd in its input"},
	"dc":      {always: "dc runs shell commands with its ! command"},
	"fish":    {always: whyOtherShell}, "csh": {always: whyOtherShell}, "tcsh": {always: whyOtherShell},
	"elvish": {always: whyOtherShell}, "nu": {always: whyOtherShell}, "pwsh": {always: whyOtherShell}, "xonsh": {always: whyOtherShell},
	"rg":      {options: map[string]option{"--pre": {runsProgram, "ripgrep runs this preprocessor on every file it searches"}}},
	"fd":      {options: map[string]option{"-x": {runsUnknown, "fd runs this command for every file found"}, "--exec": {runsUnknown, "fd runs this command for every file found"}, "-X": {runsUnknown, "fd runs this command with the files found"}, "--exec-batch": {runsUnknown, "fd runs this command with the files found"}}},
	"split":   {options: map[string]option{"--filter": {runsShell, "split runs this command line for every piece"}}},
	"tcpdump": {options: map[string]option{"-z": {runsProgram, "tcpdump runs this program on every file it rotates"}, "-w": {writesFile, ""}}},
	"nc":      {options: netcatOptions}, "ncat": {options: netcatOptions}, "netcat": {options: netcatOptions},
	"socat":  {custom: (*analyzer).socat},
	"screen": {always: "screen runs command lines in its windows"},
}

func init() {
	spec := programSpecs["git"]
	spec.custom = (*analyzer).git
	programSpecs["git"] = spec
}

// tarCompressors are the programs tar runs through PATH to compress (-z,
// -j, -J, -a with an archive's suffix) and to decompress what it detects
// when extracting: a line that sets PATH and writes one of them runs it.
var tarCompressors = []string{"gzip", "bzip2", "xz", "lzip", "lzma", "lzop", "zstd", "compress", "gunzip", "uncompress", "pigz", "pbzip2"}

const (
	whyRunsArgs   = "runs the command in its arguments, with options the analysis does not read"
	whyOtherShell = "a shell whose language the analysis does not read"
)

var netcatOptions = map[string]option{
	"-e": {runsUnknown, "netcat runs this program for a connection"}, "-c": {runsUnknown, "netcat runs this command line for a connection"},
	"--exec": {runsUnknown, "ncat runs this program for a connection"}, "--sh-exec": {runsUnknown, "ncat runs this command line for a connection"},
	"--lua-exec": {runsUnknown, "ncat runs this Lua script for a connection"},
}

const whyEditor = "the editor runs commands from its options (-c, +cmd, --cmd, -S, -u) and reads keystrokes, :! among them, from standard input"

// sshKeys are the ssh_config keys (lower case) that run a local command
// (asked as that command) or load code (a Hole); every other key sets a
// value. ssh replaces %h, %p and their kind in the command.
var sshKeys = map[string]option{
	"proxycommand":        {runsShell, "ssh runs this command line to reach the host"},
	"localcommand":        {runsShell, "ssh runs this command line after connecting"},
	"knownhostscommand":   {runsShell, "ssh runs this command line to list host keys"},
	"match":               {runsUnknown, "a Match exec condition runs a command line"},
	"include":             {runsFile, whySSHFile},
	"pkcs11provider":      {runsFile, "ssh loads this library"},
	"securitykeyprovider": {runsFile, "ssh loads this library"},
}

// gitConfigKeys are the git configuration names (matched as patterns, in
// lower case) whose value is a command line git runs (asked as that
// command), or that make what git runs unknowable (a Hole). Names in
// gitSafeConfig set plain values; any other name is a Hole, since git
// keeps adding settings that name programs.
var gitConfigKeys = []struct {
	pattern string
	option
}{
	{"alias.*", option{gitAlias, "a git alias starting with ! is a command line git runs"}},
	{"core.pager", option{runsShell, "git runs its pager with sh -c"}},
	{"pager.*", option{runsShell, "git runs this pager with sh -c"}},
	{"core.editor", option{runsShell, "git runs its editor with sh -c"}},
	{"sequence.editor", option{runsShell, "git runs its editor with sh -c"}},
	{"core.sshcommand", option{runsShell, "git runs this command line instead of ssh"}},
	{"core.askpass", option{runsShell, "git runs this program for passwords"}},
	{"core.fsmonitor", option{gitFsmonitor, "git runs this hook before it reads the index"}},
	{"core.hookspath", option{runsFile, "git runs the hooks in this directory"}},
	{"core.gitproxy", option{runsShell, "git runs this proxy command"}},
	{"core.alternaterefscommand", option{runsShell, "git runs this command line"}},
	{"diff.external", option{runsShell, "git runs this diff program"}},
	{"diff.*.textconv", option{runsShell, "git runs this filter on files it diffs"}},
	{"diff.*.command", option{runsShell, "git runs this diff program"}},
	{"merge.*.driver", option{runsShell, "git runs this merge driver"}},
	{"filter.*.clean", option{runsShell, "git runs this filter on files it reads"}},
	{"filter.*.smudge", option{runsShell, "git runs this filter on files it writes"}},
	{"filter.*.process", option{runsShell, "git runs this filter process"}},
	{"credential.helper", option{gitHelper, "git runs this credential helper"}},
	{"credential.*.helper", option{gitHelper, "git runs this credential helper"}},
	{"gpg.program", option{runsShell, "git runs this program to sign and verify"}},
	{"gpg.*.program", option{runsShell, "git runs this program to sign and verify"}},
	{"uploadpack.packobjectshook", option{runsShell, "git runs this hook to pack objects"}},
	{"include.path", option{runsFile, "an included configuration file can name commands"}},
	{"includeif.*", option{runsFile, "an included configuration file can name commands"}},
	{"interactive.difffilter", option{runsShell, "git runs this filter"}},
	{"submodule.*.update", option{gitAlias, "a submodule update mode starting with ! is a command line git runs"}},
	{"mergetool.*", option{runsUnknown, "git runs merge tools named here"}},
	{"difftool.*", option{runsUnknown, "git runs diff tools named here"}},
	{"man.*", option{runsUnknown, "git help runs viewers named here"}},
	{"browser.*", option{runsUnknown, "git runs browsers named here"}},
	{"web.browser", option{runsUnknown, "git runs browsers named here"}},
	{"sendemail.*", option{runsUnknown, "git send-email runs commands named here"}},
	{"trailer.*", option{runsUnknown, "git interpret-trailers runs commands named here"}},
	{"remote.*", option{runsUnknown, "a remote's url, uploadpack and receivepack can name commands (ext::)"}},
	{"url.*", option{runsUnknown, "a URL rewrite can make a fetch run a command (ext::)"}},
	{"protocol.*", option{runsUnknown, "protocol settings can allow ext:: URLs, which run commands"}},
	{"imap.tunnel", option{runsShell, "git imap-send runs this tunnel command"}},
	{"guitool.*", option{runsUnknown, "git gui runs commands named here"}},
	{"instaweb.*", option{runsUnknown, "git instaweb runs the server named here"}},
	{"ssh.*", option{runsUnknown, "ssh settings change which program git runs for ssh"}},
	{"gc.*", option{runsUnknown, "gc settings can start background programs"}},
	{"maintenance.*", option{runsUnknown, "maintenance settings can start background programs"}},
	{"safe.*", option{runsUnknown, "safe.directory makes git trust another user's repository and its hooks"}},
}

// gitSafeConfig are configuration names whose values only change output
// or metadata.
var gitSafeConfig = []string{
	"user.*", "author.*", "committer.*", "color.*", "advice.*", "init.defaultbranch",
	"core.quotepath", "core.autocrlf", "core.safecrlf", "core.eol", "core.abbrev", "core.filemode",
	"core.ignorecase", "core.longpaths", "core.symlinks", "core.whitespace", "core.commentchar", "core.commentstring",
	"log.*", "column.*", "status.*", "diff.noprefix", "diff.renames", "diff.algorithm", "diff.context",
	"diff.colormoved", "diff.mnemonicprefix", "diff.relative", "diff.statgraphwidth", "merge.conflictstyle",
	"pull.rebase", "pull.ff", "push.default", "fetch.prune", "rebase.autosquash", "rebase.autostash",
	"commit.gpgsign", "tag.gpgsign", "i18n.*", "blame.*", "grep.*", "branch.sort", "tag.sort",
	"versionsort.*", "pack.threads", "feature.manyfiles", "index.version", "rerere.enabled",
	"http.sslverify", "http.postbuffer", "credential.usehttppath", "format.pretty",
}

// The git options whose value says what git runs.
const (
	gitAlias effect = iota + 100
	gitFsmonitor
	gitHelper
)

// gitGlobalOptions are git's options before the subcommand.
var gitGlobalOptions = map[string]option{
	"-c":             {gitConfig, ""},
	"--config-env":   {gitConfigEnv, ""},
	"-C":             {takesValue, ""},
	"--git-dir":      {takesValue, ""},
	"--work-tree":    {takesValue, ""},
	"--namespace":    {takesValue, ""},
	"--super-prefix": {takesValue, ""},
	"--list-cmds":    {takesValue, ""},
	"--attr-source":  {takesValue, ""},
	"--exec-path":    {runsFile, "git runs its subcommands from this directory"},
	"-p":             {noValue, ""}, "--paginate": {noValue, ""},
	"-P": {noValue, ""}, "--no-pager": {noValue, ""},
	"--bare": {noValue, ""}, "--no-replace-objects": {noValue, ""}, "--literal-pathspecs": {noValue, ""},
	"--glob-pathspecs": {noValue, ""}, "--noglob-pathspecs": {noValue, ""}, "--icase-pathspecs": {noValue, ""},
	"--no-optional-locks": {noValue, ""}, "--no-lazy-fetch": {noValue, ""}, "--no-advice": {noValue, ""},
	"--html-path": {noValue, ""}, "--man-path": {noValue, ""}, "--info-path": {noValue, ""},
	"--version": {noValue, ""}, "-v": {noValue, ""}, "--help": {noValue, ""}, "-h": {noValue, ""},
}

// gitSubcommands are the subcommand options that run commands. Every
// subcommand's words are scanned for them (with abbreviations); ext::
// URLs anywhere are Holes.
var gitSubcommands = map[string]map[string]option{
	"clone": {"-u": {runsShell, "git runs this upload-pack command"}, "--upload-pack": {runsShell, "git runs this upload-pack command"},
		"-c": {gitConfig, ""}, "--config": {gitConfig, ""}, "--template": {runsFile, "a template directory holds hooks git runs"}},
	"fetch":      {"--upload-pack": {runsShell, "git runs this upload-pack command"}},
	"pull":       {"--upload-pack": {runsShell, "git runs this upload-pack command"}},
	"ls-remote":  {"--upload-pack": {runsShell, "git runs this upload-pack command"}},
	"archive":    {"--exec": {runsShell, "git runs this upload-archive command"}},
	"push":       {"--receive-pack": {runsShell, "git runs this receive-pack command"}, "--exec": {runsShell, "git runs this receive-pack command"}},
	"send-pack":  {"--receive-pack": {runsShell, "git runs this receive-pack command"}, "--exec": {runsShell, "git runs this receive-pack command"}},
	"fetch-pack": {"--upload-pack": {runsShell, "git runs this upload-pack command"}, "--exec": {runsShell, "git runs this upload-pack command"}},
	"rebase":     {"-x": {runsShell, "git rebase runs this command line after each commit"}, "--exec": {runsShell, "git rebase runs this command line after each commit"}},
	"difftool":   {"-x": {runsShell, "git difftool runs this diff command"}, "--extcmd": {runsShell, "git difftool runs this diff command"}, "-t": {runsUnknown, "git runs the tool named here"}, "--tool": {runsUnknown, "git runs the tool named here"}},
	"mergetool":  {"-t": {runsUnknown, "git runs the tool named here"}, "--tool": {runsUnknown, "git runs the tool named here"}},
	"grep":       {"-O": {runsShell, "git grep opens the files found in this pager"}, "--open-files-in-pager": {runsShell, "git grep opens the files found in this pager"}},
	"init":       {"--template": {runsFile, "a template directory holds hooks git runs"}},
	"config":     {"-f": {writesFile, ""}, "--file": {writesFile, ""}},
	"send-email": {"--sendmail-cmd": {runsShell, "git send-email runs this command"}, "--to-cmd": {runsShell, "git send-email runs this command"}, "--cc-cmd": {runsShell, "git send-email runs this command"}, "--smtp-server": {runsUnknown, "a path here is a program git runs"}},
}

// gitEverySubcommand are options many subcommands share: log, diff,
// format-patch and their kind write their output to --output's file.
var gitEverySubcommand = map[string]option{
	"--output": {writesFile, ""},
}

// gitRunsAll are subcommands that run their operands as command lines.
var gitRunsAll = map[string]string{
	"bisect":        "git bisect run runs its operands as a command",
	"submodule":     "git submodule foreach runs a command line in every submodule",
	"filter-branch": "git filter-branch runs its filters as command lines",
	"filter-repo":   "git filter-repo runs Python code from its options",
	"instaweb":      "git instaweb runs a web server named by its options",
	"web--browse":   "git web--browse runs a browser",
	"daemon":        "git daemon runs commands for clients",
	"p4":            "git p4 runs programs named by its options",
	"svn":           "git svn runs programs named by its options",
	"cvsimport":     "git cvsimport runs programs named by its options",
}
