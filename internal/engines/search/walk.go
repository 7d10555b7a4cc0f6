package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolhost/toolhost/internal/confine/fspath"
)

// This file is the directory walker Grep and the glob and list tools
// share: parallel (directories are read by GOMAXPROCS workers, and the
// visitor runs on the worker that found the file, the way ripgrep's walker
// does), skipping .git, and honouring ignore files the way ripgrep does
// (ignore.go): .gitignore files (the search root's own, nested ones, and
// those of its ancestors up to the enclosing git repository), a
// repository's .git/info/exclude, and .ignore files (nested and in every
// ancestor, with or without git). A .ignore rule beats a .gitignore rule,
// which beats .git/info/exclude; within one kind the deepest file that has
// a matching rule decides.
//
// Symbolic links are resolved before anything is read through them, and a
// link whose target leaves the places the walk may read is neither entered
// nor reported: Options.Links decides, from the resolved path, without
// asking anyone. Directory links that are allowed are walked into, at most
// once per target and never into a directory that already encloses the
// walk's position, so link loops end. A directory below the root is opened
// inside the directory it was listed in, and a file inside its directory,
// neither following a link: swapping a directory above them for a link,
// after the walk listed them, cannot lead it elsewhere.

// Entry is a file found by Walk. Its paths are built on demand (Path,
// RelPath): a search of ten thousand files needs them for the few that
// match, and building them all was a third of a search's allocations.
type Entry struct {
	dirAbs string      // absolute path of the directory holding the entry
	dirRel string      // the same, slash-separated, relative to the walk root ("" at the root)
	name   string      // base name
	typ    fs.FileMode // type bits from the directory entry (0 for a regular file)
	// target is, for a symbolic link the walk resolved and may read, the
	// path it leads to with every link followed; open that, not path, so
	// the file read is the one that was checked. "" for other entries and
	// for links that lead nowhere (dangling, looping), which must not be
	// opened.
	target string
	// dir is the directory holding the entry, open while the entry is
	// visited and closed after: a visitor may open name through it, never
	// keep it. Not set for the walk's root.
	dir dirHandle
	// root is set when the walk's root is this file: its path as given.
	root string
}

// Path is the entry's absolute path.
func (e *Entry) Path() string {
	if e.root != "" {
		return e.root
	}
	return e.dirAbs + string(filepath.Separator) + e.name
}

// RelPath is the entry's slash-separated path relative to the walk root,
// "" when the root is the file itself.
func (e *Entry) RelPath() string {
	if e.root != "" {
		return ""
	}
	return joinRel(e.dirRel, e.name)
}

// Name is the entry's base name.
func (e *Entry) Name() string { return e.name }

// Target is, for a symbolic link the walk resolved and its Links policy
// allowed, the path it leads to with every link followed: the file to
// read, rather than Path, so that what is read is what was checked. ""
// for other entries and for links that lead nowhere.
func (e *Entry) Target() string { return e.target }

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// dirEntry is one name in a directory listing.
type dirEntry struct {
	name string
	typ  fs.FileMode // type bits; fs.ModeIrregular when the listing could not tell
}

// dirScratch is a worker's reusable memory for listing directories.
type dirScratch struct {
	buf   []byte     // raw listing (Linux)
	names []byte     // the names of one directory, end to end (Linux)
	spans []nameSpan // where each name is in names (Linux)
	ents  []dirEntry
}

type nameSpan struct {
	off, n int
	typ    fs.FileMode
}

// Options tunes Walk. The zero value walks everything the ignore files
// allow, reporting symbolic links by name only.
type Options struct {
	// Skip, when set, reports whether an entry (file or directory) must be
	// left out; a skipped directory is not entered. rel is the entry's
	// slash-separated path relative to the root.
	Skip func(rel, name string, isDir bool) bool
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// NoIgnore turns off ignore-file handling (.git is still skipped).
	NoIgnore bool
	// Links decides which resolved link targets may be read. nil means
	// links are reported by name only: never resolved, entered or given a
	// target.
	Links LinkPolicy
}

// LinkPolicy decides whether the walk may read what a symbolic link leads
// to. It must be safe for concurrent use.
type LinkPolicy interface {
	// Follow reports whether resolved (a path without symlinks, a
	// directory when isDir) may be read. link is the link's path, or ""
	// for a directory met inside a followed one. outside says resolved
	// lies outside the places that need no permission, so that the
	// directories below it are asked about one by one.
	Follow(resolved string, isDir bool, link string) (ok, outside bool)
}

// walkStats says what a walk could not read.
type walkStats struct {
	unreadable int64 // directories that could not be listed
}

// Walk calls visit for every non-directory entry under root that is not
// ignored, and returns ctx.Err() when cancelled, or root's error when it
// cannot be read. See walk.
func Walk(ctx context.Context, root string, opts Options, visit func(worker int, e Entry)) error {
	_, err := walk(ctx, root, opts, visit)
	return err
}

// walk calls visit for every non-directory entry under root that is not
// ignored. visit runs concurrently on up to opts.Workers goroutines; worker
// is that goroutine's index (0 ≤ worker < workers, see walkWorkers) so
// callers can keep per-worker state without locks. A symbolic link that
// opts.Links allows is resolved: a link to a file is reported with its
// target, a link to a directory is walked into (once per target, never in a
// loop); a link it refuses is left out; a link that leads nowhere is
// reported by name without a target. When root is a file, visit is called
// once for it. walk returns ctx.Err() when cancelled.
func walk(ctx context.Context, root string, opts Options, visit func(worker int, e Entry)) (walkStats, error) {
	var stats walkStats
	info, err := os.Stat(root)
	if err != nil {
		return stats, err
	}
	if !info.IsDir() {
		// The caller checked root itself; target pins the file it checked.
		target, err := filepath.EvalSymlinks(root)
		if err != nil {
			return stats, err
		}
		visit(0, Entry{root: root, name: filepath.Base(root), typ: info.Mode().Type(), target: target})
		return stats, nil
	}
	var parent *ignoreNode
	if !opts.NoIgnore {
		parent = ancestorIgnores(root)
	}
	w := &walker{ctx: ctx, opts: opts, visit: visit}
	w.cond = sync.NewCond(&w.mu)
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return stats, err
	}
	w.entered.Store(real, true)
	w.stack = append(w.stack, dirJob{abs: root, ign: parent, real: &realDir{path: real}})
	w.pending = 1
	n := walkWorkers(opts)
	w.files = make([][]Entry, n)
	w.scratch = make([]dirScratch, n)
	w.lastYield = make([]time.Time, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work(i)
		}()
	}
	wg.Wait()
	stats.unreadable = w.unreadable.Load()
	return stats, ctx.Err()
}

// walkWorkers is the number of goroutines walk will use for opts.
func walkWorkers(opts Options) int {
	if opts.Workers > 0 {
		return opts.Workers
	}
	return max(1, goruntime.GOMAXPROCS(0))
}

type dirJob struct {
	abs, rel string
	ign      *ignoreNode // rules in force for this directory's entries, before its own ignore files
	real     *realDir    // where the directory really is, and where its ancestors are
	outside  bool        // real lies outside the places that need no permission
	// parent, when set, is the open directory the walk listed this one
	// in, under name: it is opened there, not by its path, so a directory
	// above it swapped for a link meanwhile cannot lead the walk out. The
	// job holds one of parent's references until it is opened (or
	// dropped). Not set for the root and for link targets, which are
	// opened by their resolved path.
	parent *dirRef
	name   string
}

// dirRef is an open directory shared by the jobs of its subdirectories:
// closed when the last of them has opened its own (or was dropped) and
// the directory itself has been read.
type dirRef struct {
	h    dirHandle
	refs atomic.Int32
}

func (r *dirRef) release() {
	if r.refs.Add(-1) == 0 {
		r.h.close()
	}
}

// realDir is a directory's resolved path, chained to its ancestors' in the
// walk (which, past a followed link, are not its parents on disk).
type realDir struct {
	path   string
	parent *realDir
}

// encloses reports whether target is one of the directories the walk is
// already inside at d, or holds one of them: entering it again would loop.
func (d *realDir) encloses(target string) bool {
	for ; d != nil; d = d.parent {
		if pathWithin(target, d.path) {
			return true
		}
	}
	return false
}

type walker struct {
	ctx   context.Context
	opts  Options
	visit func(int, Entry)

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []dirJob // LIFO keeps the frontier small (depth first)
	pending int      // directories queued or being read
	done    bool

	files     [][]Entry    // per worker: the files of the directory it reads, reused
	scratch   []dirScratch // per worker
	lastYield []time.Time  // per worker: when it last let the scheduler run

	unreadable atomic.Int64
	entered    sync.Map // resolved directories entered through a link (and the root): each once
}

func (w *walker) work(worker int) {
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && !w.done {
			w.cond.Wait()
		}
		if w.done {
			w.mu.Unlock()
			return
		}
		job := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()

		if w.ctx.Err() == nil {
			w.readDir(worker, job)
		} else if job.parent != nil {
			job.parent.release()
		}

		w.mu.Lock()
		if w.pending--; w.pending == 0 {
			w.done = true
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

// yieldEvery is how long a worker runs before it lets the scheduler run.
const yieldEvery = time.Millisecond

// yield gives the scheduler a turn when the worker has run for yieldEvery.
// A worker spends most of its time in short system calls and never
// blocks, so without it the runtime's monitor finds the same goroutine
// running after 10 ms and, since the worker is most likely inside a
// system call at that moment, takes its processor away and hands it to
// another thread; getting one back cost a millisecond of an idle core,
// a dozen times per search of the Go tree (a tenth of its time on two
// cores). A yield costs a microsecond.
func (w *walker) yield(worker int) {
	now := time.Now()
	if last := &w.lastYield[worker]; now.Sub(*last) >= yieldEvery {
		*last = now
		goruntime.Gosched()
	}
}

// push queues the subdirectories of a directory being read. They are
// queued before its files are visited, so that idle workers walk them
// meanwhile: a directory of many files (or a few large ones) would
// otherwise keep its subtree from every other worker until its last file
// was searched.
func (w *walker) push(subdirs []dirJob) {
	if len(subdirs) == 0 {
		return
	}
	w.mu.Lock()
	w.stack = append(w.stack, subdirs...)
	w.pending += len(subdirs)
	if len(subdirs) > 1 {
		w.cond.Broadcast()
	} else {
		w.cond.Signal()
	}
	w.mu.Unlock()
}

// readDir lists one directory, queues its subdirectories and visits its
// files.
func (w *walker) readDir(worker int, job dirJob) {
	// Open the directory inside the one it was listed in, or by its
	// resolved path (see openWalkDir), without following a link: the
	// directory read is the one that was checked.
	var dir dirHandle
	var err error
	if job.parent != nil {
		dir, err = openSubdir(job.parent.h, job.name, job.real.path)
		job.parent.release()
	} else {
		dir, err = openWalkDir(job.real.path)
	}
	if err != nil {
		w.unreadable.Add(1)
		return
	}
	// Held open while the entries are visited (a visitor may open them
	// through it: Entry.dir) and until every subdirectory queued has
	// been opened through it.
	ref := &dirRef{h: dir}
	ref.refs.Store(1)
	defer ref.release()
	sc := &w.scratch[worker]
	entries, err := dir.entries(sc) // unsorted: callers order their own results
	if err != nil && len(entries) == 0 {
		w.unreadable.Add(1)
		return
	}
	ign := job.ign
	if !w.opts.NoIgnore {
		ign = dirIgnores(ign, job.abs, job.real.path, entries)
	}
	var subdirs []dirJob
	files := w.files[worker][:0]
	for _, e := range entries {
		name, typ := e.name, e.typ
		isDir := typ.IsDir()
		// The paths are built only when something here needs them; for
		// most files nothing does (Entry builds them on demand).
		var abs string
		if isDir || typ&fs.ModeSymlink != 0 || ign != nil {
			abs = job.abs + string(filepath.Separator) + name
		}
		var target string // resolved path of a link that may be read
		if typ&fs.ModeSymlink != 0 && w.opts.Links != nil {
			if resolved, info, ok := resolveLink(abs); ok {
				target, isDir = resolved, info.IsDir()
			}
		}
		if isDir && name == ".git" {
			continue
		}
		if ign != nil && ign.ignored(abs, isDir) {
			continue
		}
		if w.opts.Skip != nil && w.opts.Skip(joinRel(job.rel, name), name, isDir) {
			continue
		}
		// Asked only now, so that an ignored link is not reported skipped.
		outside := job.outside
		if target != "" {
			follow, out := w.opts.Links.Follow(target, isDir, abs)
			if !follow {
				continue
			}
			outside = out
		}
		if isDir {
			real := job.real.path + string(filepath.Separator) + name
			if target != "" {
				// A directory link: enter its target unless that loops or
				// was entered already; else report the link by name.
				if _, seen := w.entered.LoadOrStore(target, true); seen || job.real.encloses(target) {
					files = append(files, Entry{dirAbs: job.abs, dirRel: job.rel, name: name, typ: typ})
					continue
				}
				real = target
			} else if job.outside && w.opts.Links != nil {
				// Below a followed link out of the project every directory
				// is decided on its own, so a rule denying a deeper
				// directory holds.
				if ok, _ := w.opts.Links.Follow(real, true, ""); !ok {
					continue
				}
			}
			sub := dirJob{abs: abs, rel: joinRel(job.rel, name), ign: ign, real: &realDir{path: real, parent: job.real}, outside: outside}
			if target == "" {
				ref.refs.Add(1)
				sub.parent, sub.name = ref, name
			}
			subdirs = append(subdirs, sub)
			continue
		}
		files = append(files, Entry{dirAbs: job.abs, dirRel: job.rel, name: name, typ: typ, target: target, dir: dir})
	}
	w.push(subdirs)
	for i := range files {
		w.visit(worker, files[i])
		if i%16 == 15 {
			w.yield(worker)
		}
	}
	w.yield(worker)
	// Drop the strings for the collector.
	clear(files)
	w.files[worker] = files[:0]
	clear(entries)
	sc.ents = entries[:0]
}

// resolveLink follows the symbolic link at abs to the end. ok is false when
// it leads nowhere: dangling, a loop, or unreadable.
func resolveLink(abs string) (resolved string, info fs.FileInfo, ok bool) {
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", nil, false
	}
	info, err = os.Stat(resolved)
	if err != nil {
		return "", nil, false
	}
	return resolved, info, true
}

// pathWithin reports whether target is dir or lies below it; both must be
// clean absolute paths.
func pathWithin(dir, target string) bool { return fspath.Within(dir, target) }
