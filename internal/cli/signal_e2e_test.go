package cli_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// exitWait is how soon `toolhost mcp` must exit after SIGINT or SIGTERM.
const exitWait = 2 * time.Second

// buildGuest builds a test guest of plugins/wasm/testdata/guests, or skips (fails
// under CI) without a Go toolchain that targets wasip1.
func buildGuest(t *testing.T, name string) string {
	t.Helper()
	built, err := e2e.GoBuild(filepath.Join("..", "..", "plugins", "wasm", "testdata", "guests"), wasip1, "-buildmode=c-shared", "./"+name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("build guest %s: %v", name, err)
		}
		t.Skipf("skipped: cannot build test guest %s: %v", name, err)
	}
	// A copy: the module in the build cache is shared.
	out := filepath.Join(t.TempDir(), name+".wasm")
	if err := e2e.CopyFile(built, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// wasip1 is the environment a Go test guest is built in (GOWORK=off: the
// guests are modules of their own).
var wasip1 = []string{"GOOS=wasip1", "GOARCH=wasm", "GOWORK=off"}

// stopMCP starts `toolhost mcp` on stdio, lets ready decide when to signal
// it, sends sig and returns the exit status, failing when it takes longer
// than exitWait.
func stopMCP(t *testing.T, p *e2e.Project, sig syscall.Signal, ready func(stdin io.Writer, stdout *bufio.Reader)) int {
	t.Helper()
	cmd := p.Command("mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	ready(stdin, bufio.NewReader(stdout))
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		err := waitErr
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Logf("stderr: %s", stderr.String())
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(exitWait):
		t.Fatalf("toolhost mcp still running %s after %s; stderr: %s", exitWait, sig, stderr.String())
		return -1
	}
}

func TestMCPServerExitsCleanlyOnSignals(t *testing.T) {
	t.Parallel()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n"
	serving := func(t *testing.T) func(io.Writer, *bufio.Reader) {
		return func(stdin io.Writer, stdout *bufio.Reader) {
			if _, err := io.WriteString(stdin, initialize); err != nil {
				t.Fatal(err)
			}
			line, err := stdout.ReadString('\n')
			if err != nil || !strings.Contains(line, `"result"`) {
				t.Fatalf("initialize answered %q, %v", line, err)
			}
		}
	}
	tests := []struct {
		name   string
		sig    syscall.Signal
		module bool // a module in .toolhost/tool/ that compiles at start
		ready  func(t *testing.T) func(io.Writer, *bufio.Reader)
	}{
		{"SIGTERM while serving a client", syscall.SIGTERM, false, serving},
		{"SIGINT while serving a client", syscall.SIGINT, false, serving},
		{"SIGTERM while a module compiles at start", syscall.SIGTERM, true, func(*testing.T) func(io.Writer, *bufio.Reader) {
			// The signal arrives during start-up, while the module (cache
			// empty; a Go guest takes seconds to compile) is being
			// compiled. The wait only has to outlast the process's own
			// start, before it listens for signals: on a loaded machine
			// that took over 100 ms. Whether the compile is still running
			// then or not, the exit must be 0.
			return func(io.Writer, *bufio.Reader) { time.Sleep(time.Second) }
		}},
		{"SIGTERM after start-up with a module", syscall.SIGTERM, true, serving},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := e2e.NewProject(t)
			if tt.module {
				b, err := os.ReadFile(buildGuest(t, "echo"))
				if err != nil {
					t.Fatal(err)
				}
				p.Write(filepath.Join(".toolhost", "tool", "echo.wasm"), string(b))
			}
			if code := stopMCP(t, p, tt.sig, tt.ready(t)); code != 0 {
				t.Errorf("exit status %d after %s, want 0", code, tt.sig)
			}
		})
	}
}
