package builtins

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// swapFixture is a project with a directory d holding f.txt, an empty
// directory outside it, and a swapper that replaces d by a link to the
// outside directory and back.
type swapFixture struct {
	root, project, dir, outside string
}

func newSwapFixture(t *testing.T) *swapFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &swapFixture{root: root, project: filepath.Join(root, "p"), outside: filepath.Join(root, "out")}
	f.dir = filepath.Join(f.project, "d")
	for _, d := range []string{f.dir, f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.dir, "f.txt"), []byte("v0"), 0o644); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(root, "probe")
	if err := os.Symlink(f.outside, probe); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Remove(probe)
	return f
}

// swap runs up to cycles swaps of d for a link to outside and back, until
// stop is set, and reports how many it made. Each cycle ends with the
// original d back in place.
func (f *swapFixture) swap(t *testing.T, cycles int, stop *atomic.Bool) int {
	aside := f.dir + ".aside"
	// A writer may create d again whenever it is missing (parent
	// directories are created, inside the project): such a d is dropped and
	// the step retried, a bounded number of times.
	force := func(step func() error) bool {
		for range 100 {
			if step() == nil {
				return true
			}
			os.RemoveAll(f.dir)
		}
		t.Errorf("swap: %s keeps coming back", f.dir)
		return false
	}
	n := 0
	for ; n < cycles && !stop.Load(); n++ {
		if err := os.Rename(f.dir, aside); err != nil {
			t.Errorf("swap: %v", err)
			return n
		}
		if !force(func() error { return os.Symlink(f.outside, f.dir) }) {
			return n
		}
		os.Remove(f.dir) // the link, or a d a writer made meanwhile
		if !force(func() error { return os.Rename(aside, f.dir) }) {
			return n
		}
	}
	return n
}

// assertOutsideEmpty fails when anything was created in the outside
// directory: a temporary file, a new file or a directory.
func (f *swapFixture) assertOutsideEmpty(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(f.outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s appeared outside the project", filepath.Join(f.outside, e.Name()))
	}
}

func TestWriteFileAtomicNeverLandsOutsideWhenADirectoryIsSwappedForALink(t *testing.T) {
	t.Parallel()
	f := newSwapFixture(t)
	// The tools fix the target when they check it, while d is real.
	targets := []string{writeTarget(filepath.Join(f.dir, "f.txt")), writeTarget(filepath.Join(f.dir, "sub", "new.txt"))}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f.swap(t, 2000, &stop)
	}()
	for i := range 400 {
		// Errors are expected while d is a link; only where bytes land
		// matters.
		_ = writeFileAtomic(f.project, targets[i%2], fmt.Appendf(nil, "v%d", i))
	}
	stop.Store(true)
	wg.Wait()
	f.assertOutsideEmpty(t)
	// With d real again, the write goes through and lands in d.
	if err := writeFileAtomic(f.project, targets[0], []byte("final")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "f.txt")); err != nil || string(b) != "final" {
		t.Fatalf("f.txt = %q, %v; want final", b, err)
	}
}

func TestWriteFileAtomicRefusesALinkSwappedInOnTheWay(t *testing.T) {
	t.Parallel()
	// Deterministic half of the race above: d is a link out of the project
	// when the write starts, but the target was fixed while d was real.
	f := newSwapFixture(t)
	target := writeTarget(filepath.Join(f.dir, "f.txt"))
	newTarget := writeTarget(filepath.Join(f.dir, "deeper", "n.txt"))
	if err := os.Rename(f.dir, f.dir+".aside"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, f.dir); err != nil {
		t.Fatal(err)
	}
	for _, tgt := range []string{target, newTarget} {
		err := writeFileAtomic(f.project, tgt, []byte("x"))
		if err == nil || !strings.HasPrefix(err.Error(), "write "+tgt+": ") {
			t.Errorf("write %s through a swapped-in link: err = %v, want a write error", tgt, err)
		}
	}
	if err := removeFile(f.project, target); err == nil {
		t.Error("remove through a swapped-in link succeeded")
	}
	f.assertOutsideEmpty(t)
}

func TestWriteFileAtomicWritesAnAllowedPathOutsideTheProject(t *testing.T) {
	t.Parallel()
	f := newSwapFixture(t)
	target := writeTarget(filepath.Join(f.outside, "new", "o.txt"))
	if err := writeFileAtomic(f.project, target, []byte("outside")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "outside" {
		t.Fatalf("content = %q, %v", b, err)
	}
	if err := os.Chmod(target, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(f.project, target, []byte("again")); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(target); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode after rewrite = %v, %v; want 0600 kept", info.Mode(), err)
	}
	if err := removeFile(f.project, target); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Fatalf("file still there after remove: %v", err)
	}
}

func TestFileToolsNeverWriteOutsideWhileADirectoryIsSwappedForALink(t *testing.T) {
	t.Parallel()
	f := newSwapFixture(t)
	deny := permission.Ruleset{{Permission: runtime.PermissionExternalDirectory, Pattern: "*", Action: permission.Deny}}
	reg := linkRegistry(t, f.project, deny)
	reg.Add(runtime.SourceBuiltin, Write(), Edit(), MultiEdit(), ApplyPatch())
	file := filepath.Join(f.dir, "f.txt")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f.swap(t, 5000, &stop)
	}()
	for i := range 100 {
		// Errors are expected (a read or check that meets the link is
		// denied); only where bytes land matters.
		_, _ = callTool(t, reg, "read", readParams{FilePath: file})
		_, _ = callTool(t, reg, "write", writeParams{FilePath: file, Content: fmt.Sprintf("w%d", i)})
		_, _ = callTool(t, reg, "read", readParams{FilePath: file})
		_, _ = callTool(t, reg, "edit", editParams{FilePath: file, OldString: fmt.Sprintf("w%d", i), NewString: fmt.Sprintf("e%d", i)})
		_, _ = callTool(t, reg, "multiedit", multiEditParams{FilePath: filepath.Join(f.dir, fmt.Sprintf("m%d.txt", i)), Edits: []multiEditItem{{OldString: "", NewString: "m"}}})
		_, _ = callTool(t, reg, "write", writeParams{FilePath: filepath.Join(f.dir, "sub", fmt.Sprintf("n%d.txt", i)), Content: "n"})
		_, _ = callTool(t, reg, "apply_patch", applyPatchParams{PatchText: fmt.Sprintf("*** Begin Patch\n*** Add File: %s\n+p\n*** End Patch", filepath.Join(f.dir, fmt.Sprintf("a%d.txt", i)))})
	}
	stop.Store(true)
	wg.Wait()
	f.assertOutsideEmpty(t)
}
