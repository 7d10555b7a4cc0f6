package progress

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the ticker's writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// clock is a fake time that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestWithoutAReporterNothingIsReported(t *testing.T) {
	t.Parallel()
	task := Start(context.Background(), "fetching")
	task.Set("1 MB")
	task.Done("", nil)
	if task != nil {
		t.Errorf("Start without a reporter = %v, want nil", task)
	}
}

func TestOnATerminalOneLineIsRewrittenAndEndsWithTheTime(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	c := &clock{t: time.Unix(0, 0)}
	r := NewTerminal(&out)
	r.now, r.interval = c.now, time.Hour
	ctx := With(context.Background(), r)
	task := Start(ctx, "fetching quickjs-wasi 3.6.2 with npm")
	c.add(2 * time.Second)
	task.Set(Bytes(3 << 20))
	c.add(1500 * time.Millisecond)
	task.Done("fetched quickjs-wasi 3.6.2", nil)
	want := "\r\x1b[K· fetching quickjs-wasi 3.6.2 with npm…" +
		"\r\x1b[K· fetching quickjs-wasi 3.6.2 with npm… 2s 3.0 MB" +
		"\r\x1b[K· fetched quickjs-wasi 3.6.2 in 3.5s\n"
	if got := out.String(); got != want {
		t.Errorf("terminal shows\n%q\nwant\n%q", got, want)
	}
}

func TestAFailedTaskSaysSoAndEndsItsLine(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	c := &clock{t: time.Unix(0, 0)}
	r := NewTerminal(&out)
	r.now, r.interval = c.now, time.Hour
	task := Start(With(context.Background(), r), "bundling greet.ts")
	c.add(300 * time.Millisecond)
	task.Done("", errors.New("syntax error"))
	task.Done("", nil) // a second Done is ignored
	if got, want := out.String(), "\r\x1b[K· bundling greet.ts…\r\x1b[K· bundling greet.ts failed after 300ms\n"; got != want {
		t.Errorf("terminal shows %q, want %q", got, want)
	}
}

func TestElsewhereATaskIsOneLogLineAtItsStartAndOneAtItsEnd(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	r := NewLog(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})))
	r.now = c.now
	task := Start(With(context.Background(), r), "compiling jira.wasm")
	task.Set("halfway") // not logged
	c.add(1200 * time.Millisecond)
	task.Done("compiled jira.wasm", nil)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{`level=INFO msg="compiling jira.wasm" state=started`, `level=INFO msg="compiled jira.wasm" state=done duration=1.2s`}
	if len(lines) != len(want) || lines[0] != want[0] || lines[1] != want[1] {
		t.Errorf("log =\n%s\nwant\n%s", out.String(), strings.Join(want, "\n"))
	}
}

func TestOverlappingTasksShareTheLine(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	c := &clock{t: time.Unix(0, 0)}
	r := NewTerminal(&out)
	r.now, r.interval = c.now, time.Hour
	ctx := With(context.Background(), r)
	a := Start(ctx, "compiling a.wasm")
	b := Start(ctx, "compiling b.wasm")
	c.add(100 * time.Millisecond)
	b.Done("", nil)
	a.Done("", nil)
	got := out.String()
	// b's end is a line of its own; a, still running, is drawn again below it.
	if !strings.Contains(got, "· compiling b.wasm in 100ms\n\r\x1b[K· compiling a.wasm…") || !strings.HasSuffix(got, "· compiling a.wasm in 100ms\n") {
		t.Errorf("terminal shows %q", got)
	}
}

func TestASlowStartShowsNothingForQuickWork(t *testing.T) {
	t.Parallel()
	var term syncBuffer
	var logged bytes.Buffer
	for _, r := range []*Reporter{NewTerminal(&term), NewLog(slog.New(slog.NewTextHandler(&logged, nil)))} {
		task := StartSlow(With(context.Background(), r), "compiling cached.wasm")
		task.Done("", nil)
	}
	if term.String() != "" || logged.String() != "" {
		t.Errorf("quick work was reported: terminal %q, log %q", term.String(), logged.String())
	}
}

func TestASlowStartShowsWorkThatTakesLong(t *testing.T) {
	t.Parallel()
	var term syncBuffer
	r := NewTerminal(&term)
	task := StartSlow(With(context.Background(), r), "compiling big.wasm")
	time.Sleep(Slow + 200*time.Millisecond)
	task.Done("compiled big.wasm", nil)
	if got := term.String(); !strings.Contains(got, "· compiling big.wasm…") || !strings.Contains(got, "· compiled big.wasm in 1.") {
		t.Errorf("terminal shows %q", got)
	}
}
