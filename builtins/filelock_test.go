package builtins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Under heavy load, concurrent edits of one file must never lose an update:
// every edit that reports success is in the file at the end, and every edit
// that fails says why. The file is named two ways (its own name and a
// symbolic link to it), as a model may; the edits come from two sessions
// and through edit, multiedit and apply_patch; and the scheduler is starved
// (one processor, a goroutine spinning on it) so that calls interleave at
// every point they can. Not parallel: GOMAXPROCS is the whole process's.
func TestConcurrentEditsUnderLoadLoseNoUpdate(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(1))
	var stop atomic.Bool
	var spun sync.WaitGroup
	spun.Go(func() {
		for n := 0; !stop.Load(); n++ {
			if n%1024 == 0 {
				goruntime.Gosched() // busy, yet the test itself gets to run
			}
		}
	})
	defer func() { stop.Store(true); spun.Wait() }()

	for round := range 3 {
		e := newFTEnv(t)
		const n = 50
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "line %d\n", i)
		}
		p := e.write(t, "f.txt", sb.String())
		alias := filepath.Join(e.dir, "alias.txt")
		if err := os.Symlink("f.txt", alias); err != nil {
			t.Fatal(err)
		}
		names := []string{p, alias}
		other := &ftEnv{dir: e.dir}
		other.tc = runtime.NewContext(runtime.Context{Directory: e.dir, Worktree: e.dir, SessionID: "ses-other", Store: e.tc.Store}, nil,
			func(context.Context, permission.Request) error { return nil })
		sessions := []*ftEnv{e, other}
		for _, s := range sessions {
			for _, name := range names {
				s.readAndStamp(t, name)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				name, s := names[i%2], sessions[(i/2)%2]
				old, edited := fmt.Sprintf("line %d\n", i), fmt.Sprintf("edited %d\n", i)
				switch i % 3 {
				case 0:
					_, errs[i] = s.call(t, Edit(), editParams{FilePath: name, OldString: old, NewString: edited})
				case 1:
					_, errs[i] = s.call(t, MultiEdit(), multiEditParams{FilePath: name, Edits: []multiEditItem{{OldString: old, NewString: edited}}})
				case 2:
					patch := fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n-line %d\n+edited %d\n*** End Patch", name, i, i)
					_, errs[i] = s.call(t, ApplyPatch(), applyPatchParams{PatchText: patch})
				}
			})
		}
		wg.Wait()
		got := e.content(t, "f.txt")
		applied := 0
		for i, err := range errs {
			edited := strings.Contains(got, fmt.Sprintf("edited %d\n", i))
			switch {
			case err == nil && !edited:
				t.Errorf("round %d: edit %d (through %s) reported success but was lost:\n%s", round, i, filepath.Base(names[i%2]), got)
			case err != nil && edited:
				t.Errorf("round %d: edit %d failed (%v) yet its change is in the file", round, i, err)
			case err != nil && !strings.Contains(err.Error(), "modified since it was last read"):
				t.Errorf("round %d: edit %d failed without saying the file changed since it was read: %v", round, i, err)
			case err == nil:
				applied++
			}
		}
		if applied == 0 {
			t.Errorf("round %d: no edit applied; the test proves nothing", round)
		}
	}
}
