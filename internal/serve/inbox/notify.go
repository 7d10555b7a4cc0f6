package inbox

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// A desktop notification when a question starts waiting: the person may
// be looking at another window, and an MCP client may show nothing at all
// (OpenCode keeps the server's messages in its log). It is a convenience,
// never a requirement: a system without a notifier, or one that fails,
// costs one log line, and the question waits in the inbox as ever. It is
// on by default; "server": {"inbox_notify": false} turns it off.

// Notifier shows a notification on the person's desktop.
type Notifier interface {
	Notify(ctx context.Context, title, body string) error
}

// notifyTimeout bounds one notification command.
const notifyTimeout = 5 * time.Second

// DesktopNotifier is the system's notifier: notify-send (libnotify) on
// Linux and the BSDs, osascript on macOS; nil where there is none.
func DesktopNotifier() Notifier {
	switch runtime.GOOS {
	case "darwin":
		if p, err := exec.LookPath("osascript"); err == nil {
			return commandNotifier{path: p, args: osascriptArgs}
		}
	case "windows", "plan9", "js", "wasip1":
	default:
		if p, err := exec.LookPath("notify-send"); err == nil {
			return commandNotifier{path: p, args: notifySendArgs}
		}
	}
	return nil
}

// commandNotifier runs a program with the title and body as arguments,
// never through a shell.
type commandNotifier struct {
	path string
	args func(title, body string) []string
}

func (c commandNotifier) Notify(ctx context.Context, title, body string) error {
	ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, c.path, c.args(title, body)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", c.path, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// notifySendArgs: notification servers read the body as markup, so what
// the model chose (a command) is escaped; "--" ends the options, so a body
// starting with "-" is not one.
func notifySendArgs(title, body string) []string {
	return []string{"--app-name=toolhost", "--urgency=normal", "--", escapeMarkup(title), escapeMarkup(body)}
}

// osascriptArgs pass the texts as the script's arguments, never inside
// its source, so no quoting can break out of them.
func osascriptArgs(title, body string) []string {
	return []string{
		"-e", "on run argv",
		"-e", "display notification (item 2 of argv) with title (item 1 of argv)",
		"-e", "end run",
		title, body,
	}
}

var markupEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeMarkup(s string) string { return markupEscaper.Replace(s) }

// maxNotifyText bounds what a notification quotes of a request.
const maxNotifyText = 200

// notification is the title and body shown for a parked request.
func notification(r Request, url string) (title, body string) {
	title = "toolhost asks: " + r.Permission
	what := r.Preview.Text
	if what == "" && len(r.Patterns) > 0 {
		what = strings.Join(r.Patterns, ", ")
	}
	what = oneLine(what, maxNotifyText)
	body = what
	if url != "" {
		body += "\nAnswer in the permission inbox: " + url
	}
	return title, strings.TrimSpace(body)
}

// oneLine keeps text on one line, cut at max bytes on a rune boundary.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	return clip(s, max)
}

// notifier holds the inbox's notifier and logs its first failure only.
type notifier struct {
	mu       sync.Mutex
	n        Notifier
	failOnce sync.Once
}

// SetNotifier makes the inbox show a desktop notification with n when a
// question starts waiting; nil turns them off. DesktopNotifier is the
// system's.
func (ib *Inbox) SetNotifier(n Notifier) {
	ib.notify.mu.Lock()
	ib.notify.n = n
	ib.notify.mu.Unlock()
}

// notifyParked shows r's notification without holding up the question.
func (ib *Inbox) notifyParked(r Request) {
	ib.notify.mu.Lock()
	n := ib.notify.n
	ib.notify.mu.Unlock()
	if n == nil {
		return
	}
	title, body := notification(r, ib.opts.URL)
	go func() {
		if err := n.Notify(context.Background(), title, body); err != nil {
			ib.notify.failOnce.Do(func() {
				ib.log.Info("desktop notification failed; the question waits in the inbox all the same (turn notifications off with \"server\": {\"inbox_notify\": false})", "err", err)
			})
		}
	}()
}
