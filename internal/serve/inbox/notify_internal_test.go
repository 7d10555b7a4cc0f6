package inbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/permission"
)

// TestNotificationsQuoteTheModelsTextHarmlessly: markup in a command is
// escaped for notify-send, a leading dash cannot become an option, and
// osascript gets the texts as arguments, never in its script.
func TestNotificationsQuoteTheModelsTextHarmlessly(t *testing.T) {
	t.Parallel()
	title, body := notification(Request{Permission: "bash", Preview: Preview{Kind: "command", Text: "-rf <a href='x'>click</a>\n&& rm"}}, "http://127.0.0.1:27345/")
	if !strings.Contains(body, "http://127.0.0.1:27345/") || strings.Contains(body, "\n&&") {
		t.Errorf("body %q: want one line of the command and the URL", body)
	}
	args := notifySendArgs(title, body)
	if i := indexOf(args, "--"); i < 0 || i != len(args)-3 {
		t.Errorf("notify-send args %q: the texts must follow --", args)
	}
	if s := strings.Join(args, " "); strings.Contains(s, "<a") {
		t.Errorf("markup reached notify-send: %q", s)
	}
	osa := osascriptArgs(title, body)
	for _, a := range osa[:len(osa)-2] {
		if strings.Contains(a, "rm") {
			t.Errorf("the model's text is in the script: %q", a)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

type recordingNotifier struct {
	got  chan string
	fail error
}

func (r *recordingNotifier) Notify(_ context.Context, title, body string) error {
	r.got <- title + ": " + body
	return r.fail
}

// TestAParkedQuestionIsNotifiedUnlessTurnedOff: one notification per
// question while on; none after SetNotifier(nil); a failing notifier
// does not hold up the question.
func TestAParkedQuestionIsNotifiedUnlessTurnedOff(t *testing.T) {
	t.Parallel()
	ib := New(Options{Timeout: 50 * time.Millisecond, URL: "http://127.0.0.1:27345/"})
	n := &recordingNotifier{got: make(chan string, 4), fail: context.DeadlineExceeded}
	ib.SetNotifier(n)
	req := permission.Request{Permission: "bash", Patterns: []string{"make clean"}}
	start := time.Now()
	_, _ = ib.Ask(context.Background(), req)
	if time.Since(start) > 2*time.Second {
		t.Errorf("the question waited %s: the notifier held it up", time.Since(start))
	}
	select {
	case s := <-n.got:
		if !strings.Contains(s, "toolhost asks: bash") || !strings.Contains(s, "make clean") || !strings.Contains(s, "27345") {
			t.Errorf("notification %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification")
	}
	ib.SetNotifier(nil)
	_, _ = ib.Ask(context.Background(), req)
	select {
	case s := <-n.got:
		t.Errorf("notified after turning off: %q", s)
	case <-time.After(200 * time.Millisecond):
	}
}
