package rootfs

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// swappers change root/swap while the FS is in use: setup makes it, and
// swap makes the i-th change.
var swappers = map[string]struct {
	setup func(w world)
	swap  func(w world, i int)
}{
	// A directory and a link to outside/ trade places: atomically where
	// the kernel can (renameat2 RENAME_EXCHANGE), else in two steps (then
	// a reader may also find nothing).
	"a directory swapped for a link to outside": {
		setup: func(w world) {
			os.Mkdir(filepath.Join(w.root, "swap"), 0o755)
			os.WriteFile(filepath.Join(w.root, "swap", "secret.txt"), []byte("INSIDE SWAP"), 0o644)
			os.Symlink(w.outside, filepath.Join(w.root, "swap.alt"))
		},
		swap: func(w world, i int) {
			swapDir(filepath.Join(w.root, "swap"), filepath.Join(w.root, "swap.alt"))
		},
	},
	// A link flips atomically between a directory inside and outside/, so
	// every open finds one or the other.
	"a link flipped between inside and outside": {
		setup: func(w world) {
			os.Mkdir(filepath.Join(w.root, "swap.real"), 0o755)
			os.WriteFile(filepath.Join(w.root, "swap.real", "secret.txt"), []byte("INSIDE SWAP"), 0o644)
			os.Symlink("swap.real", filepath.Join(w.root, "swap"))
		},
		swap: func(w world, i int) {
			target := "swap.real"
			if i%2 == 0 {
				target = w.outside
			}
			tmp := filepath.Join(w.root, "swap.tmp")
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil {
				os.Rename(tmp, filepath.Join(w.root, "swap"))
			}
		},
	},
}

func TestAPathSwappedDuringUseNeverLeadsOutside(t *testing.T) {
	t.Parallel()
	c := readCorpus(t)
	for name, swapper := range swappers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := build(t, c)
			swapper.setup(w)
			before := w.snapshot(t)
			fsys := New(w.root)
			t.Cleanup(func() { fsys.Close() })

			stop := make(chan struct{})
			var wg sync.WaitGroup
			var swaps atomic.Int64
			changed := make(chan struct{}, 1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					swapper.swap(w, int(swaps.Load()))
					swaps.Add(1)
					select {
					case changed <- struct{}{}:
					default:
					}
				}
			}()
			finish := func() { close(stop); wg.Wait() }

			const rounds = 1500
			results := map[string]int{}
			for i := 0; i < rounds; i++ {
				var s step
				switch i % 4 {
				case 0:
					s = step{Op: "read", Path: "swap/secret.txt"}
				case 1:
					s = step{Op: "list", Path: "swap"}
				case 2:
					s = step{Op: "write", Path: "swap/planted.txt"}
				case 3:
					s = step{Op: "mkdir", Path: "swap/planted.d"}
				}
				// Each round starts after at least one more change, so the
				// rounds see both states; the swapper does not wait for
				// the reader, so changes also land during an operation.
				<-changed
				errno, got := do(fsys, s)
				results[s.Op+" "+errnoName(errno)]++
				if strings.Contains(got, "OUTSIDE") || strings.Contains(got, "sub:") {
					finish()
					t.Fatalf("round %d: %s %s reached outside/: %q", i, s.Op, s.Path, got)
				}
			}
			finish()
			t.Logf("%d rounds over %d swaps: %v", rounds, swaps.Load(), results)
			if after := w.snapshot(t); after != before {
				t.Fatalf("the race changed what is outside the root:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// swapDir trades the directory or link at swap with the one at alt.
func swapDir(swap, alt string) {
	if exchange(swap, alt) == nil {
		return
	}
	tmp := swap + ".tmp"
	if os.Rename(swap, tmp) == nil {
		os.Rename(alt, swap)
		os.Rename(tmp, alt)
	}
}

// TestALinkFlippedIntoAReadOnlyMountIsNeverWritten: beside a read-only
// mount of root/locked, a link that flips between a folder of the
// writable mount and locked/ while the guest writes through it never
// lets a write, append, mkdir or unlink land in locked/.
func TestALinkFlippedIntoAReadOnlyMountIsNeverWritten(t *testing.T) {
	t.Parallel()
	c := readCorpus(t)
	w := build(t, c)
	makeEntries(t, w, w.root, c.ProtectedLayout)
	os.Mkdir(filepath.Join(w.root, "swap.real"), 0o755)
	os.WriteFile(filepath.Join(w.root, "swap.real", "secret.txt"), []byte("FREE"), 0o644)
	os.Symlink("swap.real", filepath.Join(w.root, "swap"))
	before := w.snapshot(t, "locked")
	fsys := New(w.root).WithReadOnly(filepath.Join(w.root, "locked"))
	t.Cleanup(func() { fsys.Close() })

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			target := "swap.real"
			if i%2 == 0 {
				target = "locked"
			}
			tmp := filepath.Join(w.root, "swap.tmp")
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil {
				os.Rename(tmp, filepath.Join(w.root, "swap"))
			}
		}
	}()
	ops := []step{
		{Op: "write", Path: "swap/secret.txt"},
		{Op: "append", Path: "swap/secret.txt"},
		{Op: "write", Path: "swap/planted.txt"},
		{Op: "mkdir", Path: "swap/planted.d"},
		{Op: "unlink", Path: "swap/secret.txt"},
		{Op: "chmod", Path: "swap/secret.txt"},
	}
	results := map[string]int{}
	for i := 0; i < 1200; i++ {
		s := ops[i%len(ops)]
		errno, _ := do(fsys, s)
		results[s.Op+" "+errnoName(errno)]++
		if i%len(ops) == len(ops)-1 {
			os.WriteFile(filepath.Join(w.root, "swap.real", "secret.txt"), []byte("FREE"), 0o644)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%v", results)
	if after := w.snapshot(t, "locked"); after != before {
		t.Fatalf("the race changed the read-only folder:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
