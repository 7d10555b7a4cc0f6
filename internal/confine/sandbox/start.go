package sandbox

import "os"

// Spawn is one command for Start: Shell (looked up in $PATH) run with Args,
// in Dir, with Env (nil: this process's) and the three standard files (nil
// ones are /dev/null). The command leads a session of its own, so
// its whole process group can be signalled with kill(-Pid).
type Spawn struct {
	Shell                 string
	Args                  []string
	Env                   []string
	Dir                   string
	Stdin, Stdout, Stderr *os.File
}

// Process is a command Start started; its parent may be a zygote rather
// than this process, so it is waited for with Wait, never os.FindProcess.
type Process struct {
	// Pid is the command's process id, and its process group's.
	Pid  int
	wait func() (exit int, signal string, err error)
}

// Wait blocks until the command has exited and reports its exit status
// (-1 when a signal ended it) and the name of that signal. It may be
// called once.
func (p *Process) Wait() (exit int, signal string, err error) { return p.wait() }

// HelperMain is the main function of the helper program HelperName
// (cmd/toolhost-sandbox). Run by toolhost of the same build, the program
// never reaches it: this package's init confines the program and executes
// the command. Reached, it tells a toolhost of another build so (which
// then confines the command itself) or a person that the program is not
// for them, and exits.
func HelperMain() { helperMain() }
