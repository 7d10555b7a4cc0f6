//go:build unix

package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testkit/fstree"
)

// A directory the walk has listed and queued is opened inside the
// directory it was listed in: swapping a directory above it for a link to
// somewhere else, between the listing and the open, does not lead the
// walk there.
func TestWalkDoesNotFollowAParentSwappedForALink(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, p := range []string{
		filepath.Join(root, "a", "sub", "inside.txt"),
		filepath.Join(outside, "sub", "OUTSIDE-SECRET"),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	swapped := false
	opts := Options{Workers: 1, Skip: func(rel, name string, isDir bool) bool {
		// Called while a is listed, before a/sub is queued: swap a now.
		if rel == "a/sub" && !swapped {
			swapped = true
			if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "a-moved")); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(outside, filepath.Join(root, "a")); err != nil {
				t.Error(err)
			}
		}
		return false
	}}
	var seen []string
	if _, err := walk(context.Background(), root, opts, func(_ int, e Entry) {
		seen = append(seen, e.name)
	}); err != nil {
		t.Fatal(err)
	}
	if !swapped {
		t.Fatal("the walk never reached a/sub")
	}
	for _, name := range seen {
		if name == "OUTSIDE-SECRET" {
			t.Fatalf("the walk followed the swapped directory out of the root: saw %v", seen)
		}
	}
	if !strings.Contains(strings.Join(seen, " "), "inside.txt") {
		t.Fatalf("the directory listed was not walked: saw %v", seen)
	}
}

// A file swapped for a FIFO after the walk listed it is not waited on:
// neither when nobody writes to it (an open that blocks for ever) nor when
// a writer feeds it without end (a read that never ends).
func TestGrepDoesNotWaitOnAFIFOPutInPlaceOfAFile(t *testing.T) {
	for _, fed := range []bool{false, true} {
		name := map[bool]string{false: "no writer", true: "fed for ever"}[fed]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "was-a-file")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			defer func() { close(stop); wg.Wait() }()
			if fed {
				w, err := os.OpenFile(fifo, os.O_RDWR, 0) // RDWR: does not wait for a reader
				if err != nil {
					t.Fatal(err)
				}
				// Fill the pipe (64 KB by default) before the search starts,
				// then keep it fed.
				if _, err := w.Write([]byte(strings.Repeat("needle line\n", 65536/12+1))[:65536]); err != nil {
					t.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer w.Close()
					chunk := []byte(strings.Repeat("needle line\n", 4096))
					for {
						select {
						case <-stop:
							return
						default:
						}
						w.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
						w.Write(chunk)
					}
				}()
			}
			d, err := openWalkDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.close()
			m, err := Compile("needle")
			if err != nil {
				t.Fatal(err)
			}
			var w grepWorker
			w.emit = w.emitLine
			done := make(chan struct{})
			go func() {
				defer close(done)
				// The walk listed it as a regular file (typ 0).
				w.searchFile(&Entry{dirAbs: dir, name: "was-a-file", dir: d}, m)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("grep is still reading the FIFO after 10 s")
			}
			if fed && w.skipped != 1 {
				t.Errorf("a fed FIFO: skipped = %d, want 1 (it is no regular file)", w.skipped)
			}
		})
	}
}

// An ignore file that is a FIFO is not waited on, one that is a link is
// not followed (as git does not), and one larger than maxIgnoreFile is
// read only up to it.
func TestIgnoreFilesThatAreNotPlainFiles(t *testing.T) {
	t.Run("fifo", func(t *testing.T) {
		// In the root's parent: the walk reads its ancestors' ignore files
		// by name (a FIFO listed in a walked directory is not a regular
		// file and never opened).
		base := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(base, ".ignore"), 0o644); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(base, "root")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan []string)
		go func() { done <- walkRelsNoHelper(root) }()
		select {
		case got := <-done:
			if !strings.Contains(strings.Join(got, " "), "a.txt") {
				t.Fatalf("walk found %v", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the walk is still waiting on a FIFO named .ignore after 10 s")
		}
	})
	t.Run("link", func(t *testing.T) {
		base := t.TempDir()
		rules := filepath.Join(base, "rules")
		if err := os.WriteFile(rules, []byte("hidden.txt\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(base, "root")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "hidden.txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(rules, filepath.Join(root, ".ignore")); err != nil {
			t.Fatal(err)
		}
		if rules := readIgnoreFile(filepath.Join(root, ".ignore")); rules != nil {
			t.Fatalf("a linked ignore file was read: %v", rules)
		}
	})
	t.Run("huge", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, ".ignore")
		content := strings.Repeat("# comment line\n", maxIgnoreFile/15+1) + "late-rule\n"
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, r := range readIgnoreFile(p) {
			if r.pattern == "late-rule" {
				t.Fatal("a rule past maxIgnoreFile was read")
			}
		}
	})
}

func walkRelsNoHelper(root string) []string {
	var mu sync.Mutex
	var got []string
	walk(context.Background(), root, Options{}, func(_ int, e Entry) {
		mu.Lock()
		got = append(got, e.RelPath())
		mu.Unlock()
	})
	return got
}

// A line longer than grepMaxLine does not make grep hold it whole: the
// file is searched up to it and counted as skipped.
func TestGrepStopsAtALineLongerThanTheCap(t *testing.T) {
	old := grepMaxLine
	grepMaxLine = 4 * grepChunk
	defer func() { grepMaxLine = old }()
	root := fstree.Write(t, map[string]string{
		"long.txt": "needle before\n" + strings.Repeat("x", 10*grepChunk) + "needle after",
	})
	res := searchNeedle(t, root)
	if res.Skipped != 1 {
		t.Errorf("skipped = %d, want 1", res.Skipped)
	}
	if len(res.Files) != 1 || res.Files[0].Count != 1 || res.Files[0].Lines[0].Num != 1 {
		t.Fatalf("found %+v, want the line before the long one", res.Files)
	}
}
