package builtins

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
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
