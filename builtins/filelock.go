package builtins

import (
	"context"
	"slices"
	"sync"
)

// fileLocks serialises the read-modify-write sequence of the file tools per
// file, so two concurrent edits of one file both land instead of the second
// overwriting the first. A lock is keyed by where the write lands — the
// path with every symbolic link resolved (writeTarget, removeTarget) — not
// by the name the model gave: `f.txt`, `./f.txt` and a link `alias.txt ->
// f.txt` are one file and one lock. Each tool holds it across the whole
// step: the freshness check against the session's read stamp, the read of
// the current content, the permission question, the write and the new
// stamp; no other write of the file can fall between them. Hard links need
// no key of their own: every write replaces the name it writes by rename,
// so two names of one inode part at the first write, and neither name's
// content is lost. Process-wide because the files are: every tool value and
// every session in the process must see the same lock for a file. Entries
// are reference counted and removed when unused, so the map does not grow
// with every file ever touched.
var fileLocks = struct {
	sync.Mutex
	m map[string]*fileLock
}{m: map[string]*fileLock{}}

type fileLock struct {
	ch   chan struct{} // a one-slot semaphore: waiting on it can be cancelled
	refs int
}

// lockFiles locks every path (sorted, so two calls locking overlapping sets
// cannot deadlock) and returns the function that unlocks them. It returns
// ctx.Err() if ctx ends while waiting, holding nothing. The paths are
// resolved write targets (see fileLocks), never names as the model wrote
// them.
func lockFiles(ctx context.Context, paths ...string) (unlock func(), err error) {
	ps := slices.Clone(paths)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	var held []string
	release := func() {
		for i := len(held) - 1; i >= 0; i-- {
			unlockFile(held[i])
		}
	}
	for _, p := range ps {
		l := acquireRef(p)
		select {
		case l.ch <- struct{}{}:
			held = append(held, p)
		case <-ctx.Done():
			dropRef(p)
			release()
			return nil, ctx.Err()
		}
	}
	return release, nil
}

func acquireRef(p string) *fileLock {
	fileLocks.Lock()
	defer fileLocks.Unlock()
	l := fileLocks.m[p]
	if l == nil {
		l = &fileLock{ch: make(chan struct{}, 1)}
		fileLocks.m[p] = l
	}
	l.refs++
	return l
}

func dropRef(p string) {
	fileLocks.Lock()
	defer fileLocks.Unlock()
	l := fileLocks.m[p]
	l.refs--
	if l.refs == 0 {
		delete(fileLocks.m, p)
	}
}

func unlockFile(p string) {
	fileLocks.Lock()
	l := fileLocks.m[p]
	fileLocks.Unlock()
	<-l.ch
	dropRef(p)
}
