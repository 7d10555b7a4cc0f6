package builtins

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpenBeneathOpensOnlyPlainPathsInsideTheRoot(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "project")
	files := map[string]string{"project/sub/ok.txt": "inside", "secret.txt": "outside"}
	for rel, content := range files {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"out": "../secret.txt", "abs": filepath.Join(base, "secret.txt"), "in": "sub/ok.txt", "subdir": "sub"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	f, ok, err := openBeneath(root, "sub/ok.txt")
	if !ok {
		if noOpenat2.Load() {
			t.Skip("openat2 is not available here; os.Root opens every file")
		}
		t.Fatal("a plain file inside the root was not opened")
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(b) != "inside" {
		t.Fatalf("read %q, %v", b, err)
	}
	// Links, even to inside, and climbs are left to os.Root.
	for _, rel := range []string{"out", "abs", "in", "subdir/ok.txt", "../secret.txt", "sub/../../secret.txt", "/etc/passwd", "missing.txt"} {
		if f, ok, _ := openBeneath(root, rel); ok {
			f.Close()
			t.Errorf("openBeneath(%q) opened it", rel)
		}
	}
	// A FIFO (swapped in after the caller looked) is refused at once,
	// not waited on.
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, ok, err := openBeneath(root, "fifo"); !ok || err == nil {
		if f != nil {
			f.Close()
		}
		t.Errorf("openBeneath(fifo) = ok %v, err %v; want a refusal", ok, err)
	}
}

// TestARegularFileReadsToItsEnd holds regularFile's end-of-file shortcut
// (a short read at the size the open saw) to reading every byte: files
// empty, smaller than, equal to and many times the buffer, and a file that
// grows after the open, which is read at least to its size then.
func TestARegularFileReadsToItsEnd(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const buf = 4096
	for _, size := range []int{0, 1, buf - 1, buf, buf + 1, 10*buf + 17} {
		content := make([]byte, size)
		for i := range content {
			content[i] = byte('a' + i%26)
		}
		name := filepath.Join(root, "f")
		if err := os.WriteFile(name, content, 0o644); err != nil {
			t.Fatal(err)
		}
		f, ok, err := openBeneath(root, "f")
		if !ok {
			t.Skip("openat2 is not available here")
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		p := make([]byte, buf)
		for {
			n, err := f.Read(p)
			got = append(got, p[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if string(got) != string(content) {
			t.Errorf("size %d: read %d bytes, want %d", size, len(got), size)
		}
		if n, err := f.Read(p); n != 0 || err != io.EOF {
			t.Errorf("size %d: a read after the end = %d, %v; want 0, EOF", size, n, err)
		}
		if err := f.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := f.Close(); err == nil {
			t.Error("a second close succeeded")
		}
	}
	// Grown after the open: what was there is read whole, and more.
	name := filepath.Join(root, "grows")
	if err := os.WriteFile(name, []byte("first part\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, ok, err := openBeneath(root, "grows")
	if !ok || err != nil {
		t.Fatalf("open: %v %v", ok, err)
	}
	defer f.Close()
	a, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.WriteString("second part\n")
	a.Close()
	b, err := io.ReadAll(f)
	if err != nil || len(b) < len("first part\n") || string(b[:11]) != "first part\n" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// TestARegularFileWhoseSizeMisleadsIsReadWhole: files in /proc and /sys
// report size 0, and a FUSE file may report less than it returns, both in
// short pieces; the end is the read of nothing, not the first short read.
// A pipe stands in for such a file: its pieces arrive as written.
func TestARegularFileWhoseSizeMisleadsIsReadWhole(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{0, 10, 1} {
		var fds [2]int
		if err := syscall.Pipe(fds[:]); err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat("0123456789", 30)
		go func() {
			for i := 0; i < len(want); i += 70 {
				syscall.Write(fds[1], []byte(want[i:min(i+70, len(want))]))
				time.Sleep(time.Millisecond)
			}
			syscall.Close(fds[1])
		}()
		f := &regularFile{fd: fds[0], size: size, path: "pipe"}
		got, err := io.ReadAll(bufio.NewReaderSize(f, 4096))
		f.Close()
		if err != nil || string(got) != want {
			t.Errorf("size %d: read %d bytes (%v), want %d", size, len(got), err, len(want))
		}
	}
	// And a real file under /proc, read as read reads it.
	f, ok, err := openBeneath("/proc/self", "status")
	if !ok || err != nil {
		t.Skipf("cannot open /proc/self/status beneath /proc/self: %v %v", ok, err)
	}
	defer f.Close()
	b, err := io.ReadAll(bufio.NewReaderSize(f, 64<<10))
	if err != nil || !strings.Contains(string(b), "VmRSS") && !strings.Contains(string(b), "voluntary_ctxt_switches") {
		t.Errorf("/proc/self/status read as %d bytes (%v), ending %q", len(b), err, b[max(0, len(b)-80):])
	}
}
