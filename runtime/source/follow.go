package source

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultInterval is how often Follow looks when no file-system event
// arrives.
const DefaultInterval = time.Second

// settleDelay is how long Follow waits after a file-system event for more
// to follow before it looks: a module being copied in produces a burst of
// writes, and loading it half-written would report an error and, for a
// replaced module, withdraw its tools for a moment.
const settleDelay = 100 * time.Millisecond

// FollowOptions tune Follow. The zero value is what a host uses.
type FollowOptions struct {
	// Interval between looks without an event. Default DefaultInterval.
	Interval time.Duration
	// NoEvents makes Follow poll alone (a test seam; also what happens
	// where fsnotify is unavailable).
	NoEvents bool
	Logger   *slog.Logger
}

// Follow keeps the watchers ws current until ctx ends: each is looked at
// once at the start (a change made between its source's Load and now
// raised no event), then whenever a file-system event under one of their
// folders has settled, and every interval. apply gets each change that is
// not empty with the index in ws of the watcher it came from; the
// watchers are looked at in order, one at a time, from this goroutine.
//
// Changes are noticed through file-system events (fsnotify: inotify,
// kqueue, ReadDirectoryChangesW); the timer covers file systems that send
// none (network and some container mounts) and platforms without fsnotify:
// a change is seen within the interval either way.
func Follow(ctx context.Context, ws []Watcher, opts FollowOptions, apply func(i int, c Change)) {
	if len(ws) == 0 {
		return
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	folders := func() []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Folders()...)
		}
		return out
	}
	events := newFolderEvents(folders, opts)
	defer events.close()
	look := func() {
		for i, w := range ws {
			if ctx.Err() != nil {
				return
			}
			w.Look(ctx, func(c Change) {
				if !c.Empty() {
					apply(i, c)
				}
			})
		}
	}
	look()
	poll := time.NewTicker(opts.Interval)
	defer poll.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-events.c:
			settle.Reset(settleDelay)
		case <-settle.C:
			events.rewatch()
			look()
		case <-poll.C:
			look()
		}
	}
}

// folderEvents turns file-system events under some folders into
// wake-ups. Without fsnotify (an unsupported platform, no inotify watches
// left) c never fires and Follow polls alone.
type folderEvents struct {
	folders func() []string
	log     *slog.Logger
	w       *fsnotify.Watcher
	watched map[string]bool
	c       chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

func newFolderEvents(folders func() []string, opts FollowOptions) *folderEvents {
	e := &folderEvents{folders: folders, log: opts.Logger, watched: map[string]bool{}, c: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if opts.NoEvents {
		close(e.done)
		return e
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		e.log.Info("file-system events unavailable; polling the tool folders", "err", err)
		close(e.done)
		return e
	}
	e.w = w
	e.rewatch()
	go e.forward()
	return e
}

// rewatch watches, for every folder, the folder itself when it exists,
// else the nearest existing of its parent and grandparent (a config
// directory and the folder holding it), so creating .toolhost/tool/
// after start is an event too.
//
// It looks twice: a folder created between the first look's stat (not
// there yet) and the watch on its parent raised no event, and a module
// copied into it then would go unseen until the next poll. The second
// look, after every watch is in place, finds such a folder; one created
// after it is an event on the parent.
func (e *folderEvents) rewatch() {
	if e.w == nil {
		return
	}
	for range 2 {
		for _, f := range e.folders() {
			for _, p := range []string{f, filepath.Dir(f), filepath.Dir(filepath.Dir(f))} {
				if st, err := os.Stat(p); err != nil || !st.IsDir() {
					continue
				}
				if !e.watched[p] {
					if err := e.w.Add(p); err != nil {
						e.log.Debug("cannot watch folder; polling covers it", "dir", p, "err", err)
						break
					}
					e.watched[p] = true
				}
				break
			}
		}
	}
}

// forward passes events on as wake-ups, coalesced.
func (e *folderEvents) forward() {
	defer close(e.done)
	for {
		select {
		case <-e.stop:
			return
		case _, ok := <-e.w.Events:
			if !ok {
				return
			}
			select {
			case e.c <- struct{}{}:
			default:
			}
		case err, ok := <-e.w.Errors:
			if !ok {
				return
			}
			e.log.Debug("file-system events", "err", err)
		}
	}
}

func (e *folderEvents) close() {
	if e.w == nil {
		return
	}
	close(e.stop)
	e.w.Close()
	<-e.done
}
