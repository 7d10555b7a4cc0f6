package e2e

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// RunTerminal runs the binary as a person at a terminal would: stdin,
// stdout and stderr are one pseudo-terminal, which is also the process's
// controlling terminal (so /dev/tty is that terminal, never the test
// runner's). typed is what the person types. It returns everything the
// terminal showed (with the terminal's \r\n line ends turned back into \n)
// and the exit code.
func (p *Project) RunTerminal(typed string, args ...string) (string, int) {
	p.T.Helper()
	master, slave, err := openPTY()
	if err != nil {
		if os.Getenv("CI") == "true" {
			p.T.Fatalf("open a pseudo-terminal: %v", err)
		}
		p.T.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	cmd := p.Command(args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		slave.Close()
		p.T.Fatalf("run toolhost %s: %v", strings.Join(args, " "), err)
	}
	slave.Close()
	if typed != "" {
		if _, err := io.WriteString(master, typed); err != nil {
			p.T.Fatalf("type into the terminal: %v", err)
		}
	}
	var shown bytes.Buffer
	// Reading ends with EIO once the process and its children have closed
	// the terminal.
	_, _ = io.Copy(&shown, master)
	err = cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		p.T.Fatalf("run toolhost %s: %v", strings.Join(args, " "), err)
	}
	return strings.ReplaceAll(shown.String(), "\r\n", "\n"), code
}

// openPTY opens a new pseudo-terminal pair through /dev/ptmx.
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}
