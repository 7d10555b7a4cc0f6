//go:build linux

package builtins

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ttyChildEnv makes the test binary run one bash call from inside a
// session whose controlling terminal is a pseudo-terminal, as toolhost
// started from a terminal runs.
const ttyChildEnv = "TOOLHOST_TEST_TTY_CHILD"

// openPTY returns a pseudo-terminal's two ends.
func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	var unlock int32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, m.Fd(), unix.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// TestBashCommandsCannotReachToolhostsTerminal: a command that opens
// /dev/tty gets the terminal toolhost was started from, whose input it
// could fill with TIOCSTI — keystrokes the user's shell runs once
// toolhost exits, outside every rule and the sandbox. Commands run in a
// session of their own, without a controlling terminal.
func TestBashCommandsCannotReachToolhostsTerminal(t *testing.T) {
	if os.Getenv(ttyChildEnv) == "1" {
		_, project := bashProject(t)
		res, err := runBashTool(t, context.Background(), bashContext(project, &bashProbe{}, nil), bashParams{Command: "exec 3</dev/tty && echo GOT-THE-TERMINAL", Description: "tty"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("OUTPUT:", res.Output)
		return
	}
	t.Parallel()
	_, pts := openPTY(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestBashCommandsCannotReachToolhostsTerminal$", "-test.v")
	cmd.Env = append(os.Environ(), ttyChildEnv+"=1")
	cmd.Stdin = pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "OUTPUT:") {
		t.Fatalf("the child did not run the command:\n%s", out)
	}
	if strings.Contains(string(out), "GOT-THE-TERMINAL") {
		t.Errorf("a bash command opened toolhost's controlling terminal:\n%s", out)
	}
}
