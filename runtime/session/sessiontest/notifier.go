package sessiontest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/session"
)

// RunNotifier checks a session.Notifier: newPair returns two handles on
// one new backing store (the same handle twice for a store in memory);
// notifications sent through a reach listeners registered through b.
func RunNotifier(t *testing.T, newPair func(t *testing.T) (a, b session.Notifier)) {
	t.Helper()
	for _, c := range notifier {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, b := newPair(t)
			c.test(t, a, b)
		})
	}
}

var notifier = []struct {
	name string
	test func(t *testing.T, a, b session.Notifier)
}{
	{"a notification reaches the listeners of its channel and no other", testNotifyChannels},
	{"a listener whose context ended hears nothing more", testNotifyStops},
	{"bad channels and payloads are refused", testNotifyRefuses},
}

// wait is how long a test waits for a notification it expects; one it
// does not expect is caught by the marker sent after it, not by a timer.
const wait = 30 * time.Second

// listen registers on b's channel and returns the payloads heard, the
// empty "re-read" payload left out.
func listen(t *testing.T, ctx context.Context, n session.Notifier, channel string) <-chan string {
	t.Helper()
	got := make(chan string, 100)
	if err := n.Listen(ctx, channel, func(p string) {
		if p != "" {
			got <- p
		}
	}); err != nil {
		t.Fatalf("listen %q: %v", channel, err)
	}
	return got
}

func next(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case p := <-got:
		return p
	case <-time.After(wait):
		t.Fatal("no notification arrived")
		return ""
	}
}

func notify(t *testing.T, n session.Notifier, channel, payload string) {
	t.Helper()
	if err := n.Notify(t.Context(), channel, payload); err != nil {
		t.Fatalf("notify %q %q: %v", channel, payload, err)
	}
}

func testNotifyChannels(t *testing.T, a, b session.Notifier) {
	one := listen(t, t.Context(), b, "one")
	two := listen(t, t.Context(), b, "two")
	alsoOne := listen(t, t.Context(), a, "one")
	payload := "tcall_1 ünïcode\n'; NOTIFY x; --"
	notify(t, a, "one", payload)
	notify(t, a, "two", "marker")
	if p := next(t, one); p != payload {
		t.Errorf("listener of one heard %q, want %q", p, payload)
	}
	if p := next(t, alsoOne); p != payload {
		t.Errorf("second listener of one heard %q, want %q", p, payload)
	}
	if p := next(t, two); p != "marker" {
		t.Errorf("listener of two heard %q first, want only its own channel's marker", p)
	}
}

func testNotifyStops(t *testing.T, a, b session.Notifier) {
	ctx, cancel := context.WithCancel(t.Context())
	stopped := listen(t, ctx, b, "c")
	live := listen(t, t.Context(), b, "c")
	cancel()
	// AfterFunc removes the listener on its own goroutine; give it the
	// time it needs without asserting on time.
	deadline := time.Now().Add(wait)
	for {
		notify(t, a, "c", "after")
		next(t, live)
		select {
		case <-stopped:
			if time.Now().After(deadline) {
				t.Fatal("a listener whose context ended still hears notifications")
			}
			time.Sleep(10 * time.Millisecond)
			continue
		default:
		}
		break
	}
	// Once it stopped hearing, it stays stopped.
	notify(t, a, "c", "later")
	next(t, live)
	select {
	case p := <-stopped:
		t.Errorf("stopped listener heard %q", p)
	default:
	}
}

func testNotifyRefuses(t *testing.T, a, _ session.Notifier) {
	for _, c := range []struct{ channel, payload string }{
		{"", "p"},
		{"a\nb", "p"},
		{"a\x00b", "p"},
		{strings.Repeat("c", 65), "p"},
		{"c", strings.Repeat("p", session.MaxPayload+1)},
		{"c", "p\x00"},
	} {
		if err := a.Notify(t.Context(), c.channel, c.payload); err == nil {
			t.Errorf("Notify(%q, %d bytes) succeeded", c.channel, len(c.payload))
		}
	}
	for _, ch := range []string{"", "a\nb", strings.Repeat("c", 65)} {
		if err := a.Listen(t.Context(), ch, func(string) {}); err == nil {
			t.Errorf("Listen(%q) succeeded", ch)
		}
	}
	if err := a.Notify(t.Context(), "c", strings.Repeat("p", session.MaxPayload)); err != nil {
		t.Errorf("Notify of MaxPayload bytes: %v", err)
	}
}
