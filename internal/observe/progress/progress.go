// Package progress tells a person about work they wait on for more than a
// moment — fetching a JS or Python engine, bundling a TypeScript tool,
// compiling a wasm module, building a tool, fetching a plugin — so that a
// first command that takes twenty seconds does not look hung.
//
// One Reporter serves every such place, and reaches it through the
// context (With, Start), so the packages doing the work need no option of
// their own and import nothing but this one. How it shows depends on where
// its output goes:
//
//   - a terminal: one line per task, rewritten in place with what is
//     happening, how long it has taken and how far it is (Task.Set, e.g.
//     bytes fetched), ended by a line with the total time;
//   - anything else (a pipe, a log file, an MCP client's stderr): one slog
//     line when the task starts and one when it ends, with its duration.
//
// A context without a Reporter reports nothing: tests and library users
// see no output unless they ask for it. It imports only the standard
// library, so any layer may use it.
package progress

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Reporter shows tasks on a terminal or logs them; see the package doc.
// Its methods are safe for concurrent use; on a terminal, tasks that
// overlap share the line, the latest one shown.
type Reporter struct {
	w        io.Writer // a terminal, when term
	term     bool
	log      *slog.Logger
	interval time.Duration // how often a terminal line is refreshed
	now      func() time.Time

	mu      sync.Mutex
	running []*Task // on a terminal, oldest first; the last one is on the line
}

// live is the task on the terminal line, or nil; r.mu is held.
func (r *Reporter) live() *Task {
	if len(r.running) == 0 {
		return nil
	}
	return r.running[len(r.running)-1]
}

// NewTerminal reports on the terminal w, rewriting one line in place.
func NewTerminal(w io.Writer) *Reporter {
	return &Reporter{w: w, term: true, interval: time.Second, now: time.Now}
}

// NewLog reports each task as two Info records of log, at its start and
// its end.
func NewLog(log *slog.Logger) *Reporter {
	return &Reporter{log: log, now: time.Now}
}

type key struct{}

// With returns ctx carrying r; a nil r reports nothing.
func With(ctx context.Context, r *Reporter) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// From returns the Reporter ctx carries, or nil.
func From(ctx context.Context) *Reporter {
	r, _ := ctx.Value(key{}).(*Reporter)
	return r
}

// Start reports that the task what (e.g. "fetching quickjs-wasi 3.6.2 with
// npm") has started, through the Reporter ctx carries. The Task it returns
// must be ended with Done; without a Reporter it does nothing.
func Start(ctx context.Context, what string) *Task { return start(ctx, what, 0) }

// Slow is how long a task started with StartSlow runs before it is shown.
const Slow = time.Second

// StartSlow is Start for work that is usually quick (compiling a module
// wazero has cached): the task is shown, or logged, only once it has run
// for Slow, and a task that ends sooner leaves no trace.
func StartSlow(ctx context.Context, what string) *Task { return start(ctx, what, Slow) }

func start(ctx context.Context, what string, after time.Duration) *Task {
	r := From(ctx)
	if r == nil {
		return nil
	}
	t := &Task{r: r, what: what, start: r.now(), stop: make(chan struct{})}
	if after == 0 {
		t.show()
	}
	if r.term || after > 0 {
		go t.tick(after)
	}
	return t
}

// show reports that t has started: logs it, or puts it on the terminal
// line.
func (t *Task) show() {
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	t.shown = true
	if !r.term {
		r.log.Info(t.what, "state", "started")
		return
	}
	r.running = append(r.running, t)
	r.draw(t)
}

// Task is one task being reported. A nil Task (no Reporter) ignores
// every call.
type Task struct {
	r      *Reporter
	what   string
	start  time.Time
	stop   chan struct{}
	once   sync.Once
	detail string // guarded by r.mu
	shown  bool   // its start was reported; guarded by r.mu
}

// Set says how far the task is, e.g. "3.1 MB"; a terminal shows it at
// once, a log does not (it gets the start and the end).
func (t *Task) Set(detail string) {
	if t == nil || !t.r.term {
		return
	}
	t.r.mu.Lock()
	t.detail = detail
	if t.r.live() == t {
		t.r.draw(t)
	}
	t.r.mu.Unlock()
}

// Done ends the task: done says what was done ("" repeats the task's
// text), and err, when not nil, that it failed (the caller reports the
// error itself; the line repeats the task's text and says it failed).
func (t *Task) Done(done string, err error) {
	if t == nil {
		return
	}
	t.once.Do(func() {
		close(t.stop)
		r := t.r
		if done == "" || err != nil {
			done = t.what
		}
		elapsed := r.now().Sub(t.start)
		r.mu.Lock()
		shown := t.shown
		r.mu.Unlock()
		if !shown {
			return // a StartSlow task that ended in time
		}
		if !r.term {
			if err != nil {
				r.log.Info(done, "state", "failed", "duration", elapsed.Round(time.Millisecond))
			} else {
				r.log.Info(done, "state", "done", "duration", elapsed.Round(time.Millisecond))
			}
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		status := "in"
		if err != nil {
			status = "failed after"
		}
		for i, rt := range r.running {
			if rt == t {
				r.running = append(r.running[:i], r.running[i+1:]...)
				break
			}
		}
		fmt.Fprintf(r.w, "\r\x1b[K· %s %s %s\n", done, status, round(elapsed))
		if live := r.live(); live != nil {
			r.draw(live) // a task still running takes the line back
		}
	})
}

// tick shows the task after the delay after, when it is not shown yet,
// then on a terminal redraws its line once an interval, so the time it
// shows moves while nothing else does.
func (t *Task) tick(after time.Duration) {
	if after > 0 {
		tm := time.NewTimer(after)
		select {
		case <-t.stop:
			tm.Stop()
			return
		case <-tm.C:
			t.show()
		}
	}
	if !t.r.term {
		return
	}
	tk := time.NewTicker(t.r.interval)
	defer tk.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tk.C:
			t.r.mu.Lock()
			if t.r.live() == t {
				t.r.draw(t)
			}
			t.r.mu.Unlock()
		}
	}
}

// draw rewrites the terminal line with t; r.mu is held.
func (r *Reporter) draw(t *Task) {
	line := "\r\x1b[K· " + t.what + "…"
	if elapsed := r.now().Sub(t.start); elapsed >= time.Second {
		line += " " + round(elapsed)
	}
	if t.detail != "" {
		line += " " + t.detail
	}
	io.WriteString(r.w, line)
}

// round is d as a person reads it: 350ms, 4.2s, 1m5s.
func round(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// Bytes is n bytes as a person reads it, for Task.Set: 512 B, 3.1 MB.
func Bytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
