//go:build linux

package sandbox

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// requireLandlock skips where the kernel has no Landlock, except in CI,
// where a missing sandbox must not pass unnoticed.
func requireLandlock(t *testing.T, minABI int) int {
	t.Helper()
	abi, err := Available()
	if err == nil && abi >= minABI {
		return abi
	}
	msg := "kernel lacks Landlock ABI " + string(rune('0'+minABI))
	if err != nil {
		msg += ": " + err.Error()
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return 0
}

// confined runs script with sh under p and returns its output and error.
func confined(t *testing.T, p Policy, script string) (string, error) {
	t.Helper()
	cmd, started, err := Command(p, "sh", []string{"-c", script}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	herr := started()
	werr := cmd.Wait()
	if herr != nil {
		return out.String(), herr
	}
	return out.String(), werr
}

func TestConfinedCommandsWriteOnlyBeneathWritableRoots(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	inside, outside := t.TempDir(), t.TempDir()
	p := Policy{Writable: append([]string{inside}, Devices...), Network: true}
	tests := []struct {
		name   string
		script string
		ok     bool
	}{
		{"creating a file inside a writable root works", "echo hi > " + inside + "/f && cat " + inside + "/f", true},
		{"creating a directory tree inside works", "mkdir -p " + inside + "/a/b && touch " + inside + "/a/b/c", true},
		{"redirecting to /dev/null and /dev/stdout works", "echo x > /dev/null && echo y > /dev/stdout", true},
		{"creating a file outside is refused", "echo hi > " + outside + "/f", false},
		{"creating a directory outside is refused", "mkdir " + outside + "/d", false},
		{"a symbolic link inside pointing outside does not widen the sandbox", "ln -s " + outside + " " + inside + "/out && echo hi > " + inside + "/out/f", false},
		{"moving a file from inside to outside is refused", "touch " + inside + "/m && mv " + inside + "/m " + outside + "/m", false},
		{"reading outside stays open", "cat /etc/hostname /proc/self/status > /dev/null", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, byFork := range startWays() {
				out, err := confinedBy(t, byFork, p, tt.script)
				var he *HelperError
				if errors.As(err, &he) {
					t.Fatalf("%s: confining failed: %v", wayName(byFork), err)
				}
				if tt.ok && err != nil {
					t.Errorf("%s, %s: %v\n%s", wayName(byFork), tt.script, err, out)
				}
				if !tt.ok && err == nil {
					t.Errorf("%s, %s succeeded; want the kernel to refuse it\n%s", wayName(byFork), tt.script, out)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Error("a file appeared outside the writable roots")
	}
	// The test process itself is not confined.
	if err := os.WriteFile(filepath.Join(outside, "host"), []byte("x"), 0o644); err != nil {
		t.Errorf("the host process was restricted too: %v", err)
	}
}

func TestProtectedDirectoriesStayReadOnlyInsideAWritableRoot(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	root := t.TempDir()
	data := filepath.Join(root, "share", "toolhost")
	for _, d := range []string{data, filepath.Join(root, "share", "other"), filepath.Join(root, "work")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{Writable: []string{root}, Protected: []string{data}, Network: true}
	if out, err := confined(t, p, "touch "+data+"/sessions.db"); err == nil {
		t.Errorf("writing the protected directory succeeded\n%s", out)
	}
	if out, err := confined(t, p, "rm -rf "+filepath.Join(root, "share")); err == nil {
		t.Errorf("removing the protected directory's parent succeeded\n%s", out)
	}
	if out, err := confined(t, p, "touch "+root+"/work/f "+root+"/share/other/f"); err != nil {
		t.Errorf("writing the protected directory's siblings failed: %v\n%s", err, out)
	}
	if _, err := os.Stat(data); err != nil {
		t.Errorf("protected directory is gone: %v", err)
	}
}

func TestNetworkFalseRefusesTCPConnect(t *testing.T) {
	requireLandlock(t, MinNetworkABI)
	t.Parallel()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	// bash's /dev/tcp connects with connect(2); plain sh may lack it.
	script := "exec 3<>/dev/tcp/127.0.0.1/" + itoa(port)
	for _, tt := range []struct {
		network bool
		ok      bool
	}{{true, true}, {false, false}} {
		cmd, started, err := Command(Policy{Network: tt.network, Writable: Devices}, "bash", []string{"-c", script}, nil)
		if err != nil {
			t.Skip("bash is needed for /dev/tcp:", err)
		}
		out, _ := cmd.CombinedOutput()
		if herr := started(); herr != nil {
			t.Fatalf("helper failed: %v", herr)
		}
		if ok := cmd.ProcessState.Success(); ok != tt.ok {
			t.Errorf("network=%v: connect succeeded=%v, want %v\n%s", tt.network, ok, tt.ok, out)
		}
	}
}

func itoa(n int) string {
	var b []byte
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

func TestTheMarkerDoesNotReachTheCommand(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	out, err := confined(t, Policy{Network: true}, "env; echo \"args: $0\"")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, HelperEnv) || strings.Contains(out, HelperArg) {
		t.Errorf("the helper's marker leaked into the command:\n%s", out)
	}
}

func TestTheHelperFailsClosed(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	// A policy that cannot be decoded never runs the command.
	cmd, started, err := Command(Policy{}, "sh", []string{"-c", "echo ran"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Args[2] = `{"write":[{"path":"/","dir":true}],"unknown":1}`
	out, _ := cmd.CombinedOutput()
	var he *HelperError
	if err := started(); !errors.As(err, &he) || !strings.Contains(err.Error(), "decode sandbox policy") {
		t.Errorf("started() = %v, want a HelperError about the policy", err)
	}
	if strings.Contains(string(out), "ran") {
		t.Errorf("the command ran although the sandbox failed: %s", out)
	}
}

func TestAPlanTooLongForAnArgumentGoesThroughAPipe(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	root := t.TempDir()
	// Thousands of entries beside a protected directory: each is granted
	// on its own.
	for i := range 3000 {
		if err := os.WriteFile(filepath.Join(root, "entry-with-a-long-name-"+itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(root, "toolhost")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: append([]string{root}, Devices...), Protected: []string{data}, Network: true}
	if enc, _ := helperArgsFor(p, CachedPlan(p)).encode(); len(enc) <= maxPlanArg {
		t.Fatalf("the plan takes %d bytes; the test needs more than %d", len(enc), maxPlanArg)
	}
	if out, err := confined(t, p, "echo x > "+root+"/entry-with-a-long-name-2999 && echo ok"); err != nil || !strings.Contains(out, "ok") {
		t.Errorf("writing a granted entry failed: %v\n%s", err, out)
	}
	if out, err := confined(t, p, "touch "+data+"/sessions.db"); err == nil {
		t.Errorf("writing the protected directory succeeded\n%s", out)
	}
}
