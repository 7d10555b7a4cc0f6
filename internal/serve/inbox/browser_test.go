package inbox_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/toolhost/toolhost/internal/serve/inbox"
)

// screenshotsEnv names a directory to save the page's screenshots in
// (docs/ when they are retaken for docs/inbox.md).
const screenshotsEnv = "TOOLHOST_INBOX_SCREENSHOTS"

// chromium finds Debian's chromium: skipped locally without it, a failure
// in CI, which installs it (.ci/run).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; .ci/run installs Debian's chromium")
	}
	t.Skip("chromium is not installed (apt-get install chromium); skipping the browser test")
	return ""
}

// browser starts a headless chromium for the test and returns its context.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1100, 760),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*patience)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAPersonAnswersInTheBrowser: an MCP client without elicitation calls
// bash under an "ask" rule; the page, open before the call, shows the
// request with its command without a reload; clicking "Allow once" lets
// the call finish with the command's output, and a message typed and sent
// with Enter (the keyboard's "reject with message") reaches the model.
// untilTrue evaluates js, an expression of a boolean, until it is true.
// The page re-renders its lists from live events, so a node chromedp finds
// can be replaced before an action on it lands ("Could not find node with
// given id"), and an answered request's article can still be there when
// the next one comes: the tests look, and act, in the page itself.
func untilTrue(ctx context.Context, what, js string) error {
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// requestJS is a JavaScript expression of the request article showing
// command, or null.
func requestJS(command string) string {
	return `[...document.querySelectorAll('#requests article.request')].find(a => a.querySelector('pre.preview-command')?.textContent === ` + strconv.Quote(command) + `)`
}

// answer clicks the reply button of the request for command.
func answer(ctx context.Context, command, reply string) error {
	return untilTrue(ctx, "answer "+reply+" to "+command,
		`(() => { const b = `+requestJS(command)+`?.querySelector('button[data-reply="`+reply+`"]'); if (!b) return false; b.click(); return true })()`)
}

// click clicks the first element matching selector once there is one.
func click(ctx context.Context, selector string) error {
	return untilTrue(ctx, "click "+selector,
		`(() => { const e = document.querySelector(`+strconv.Quote(selector)+`); if (!e) return false; e.click(); return true })()`)
}

func TestAPersonAnswersInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	f := newFixture(t, fixtureOptions{})
	cs := f.client(t)

	if err := chromedp.Do(ctx,
		chromedp.Navigate(f.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#requests .empty`)),
	); err != nil {
		t.Fatalf("open the inbox: %v", err)
	}
	done := callBash(cs, "echo browser-said-yes")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#requests article.request pre.preview-command`))); err != nil {
		t.Fatalf("wait for the request on the page: %v", err)
	}
	command, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#requests article.request pre.preview-command`)))
	if err != nil {
		t.Fatal(err)
	}
	if command != "echo browser-said-yes" {
		t.Errorf("the page shows the command %q", command)
	}
	source, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#requests article.request .source`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(source, "toolhost.json:3") {
		t.Errorf("the page names the rule's source %q, want …toolhost.json:3", source)
	}
	screenshot(t, ctx, "inbox-request.png")
	if err := answer(ctx, "echo browser-said-yes", "once"); err != nil {
		t.Fatalf("click once: %v", err)
	}
	r := waitResult(t, done)
	if r.isError || !strings.Contains(r.text, "browser-said-yes") {
		t.Errorf("the call after once: %+v, want the command's output", r)
	}

	// "Always allow" adds an approval to the session, listed with a
	// revoke button; revoking it takes it away.
	done = callBash(cs, "ls")
	if err := answer(ctx, "ls", "always"); err != nil {
		t.Fatalf("click always: %v", err)
	}
	if r := waitResult(t, done); r.isError {
		t.Fatalf("the call after always: %+v", r)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#sessions button[data-revoke]`))); err != nil {
		t.Fatalf("the approval is not listed: %v", err)
	}
	screenshot(t, ctx, "inbox-sessions.png")
	if err := click(ctx, `#sessions button[data-revoke]`); err == nil {
		err = chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(`#sessions button[data-revoke]`)))
	}
	if err != nil {
		t.Fatalf("revoke: %v", err)
	}
	var sessions struct{ Sessions []inbox.Session }
	f.getJSON(t, "/api/sessions", &sessions)
	if len(sessions.Sessions) != 1 || len(sessions.Sessions[0].Approvals) != 0 {
		t.Errorf("sessions after revoke: %+v, want no approvals", sessions.Sessions)
	}

	done = callBash(cs, "rm -rf build")
	if err := untilTrue(ctx, "wait for the request of rm", `document.querySelectorAll('#requests article.request').length === 1 && !!`+requestJS("rm -rf build")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`#requests article.request input[data-message]`)),
		chromedp.SendKeys(chromedp.CSS(`#requests article.request input[data-message]`), "run make clean instead"+kb.Enter),
	); err != nil {
		t.Fatalf("reject with a message: %v", err)
	}
	r = waitResult(t, done)
	if !r.isError || !strings.Contains(r.text, "run make clean instead") {
		t.Errorf("the call after reject with a message: %+v, want the message", r)
	}
	// The sessions list follows the calls live.
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`#sessions td.status-error`)),
		chromedp.WaitVisible(chromedp.CSS(`#requests .empty`)),
	); err != nil {
		t.Fatalf("the sessions list did not follow: %v", err)
	}
}
