package cli

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/serve/inbox"
)

// TestInboxOpensTheProjectsRunningInboxSignedIn: `toolhost inbox` finds
// the inbox the project's toolhost published, prints its URL with the
// user's token and opens it (--print only prints); a record left by a
// process that is gone is dropped, and with no inbox running it says how
// to start one.
func TestInboxOpensTheProjectsRunningInboxSignedIn(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	dataDir := filepath.Join(data, "toolhost")
	project := t.TempDir()
	g := &Globals{Dir: project}
	run := func(opts *InboxOpenOptions) (string, error) {
		var out bytes.Buffer
		g.Streams = IOStreams{Out: &out, ErrOut: &bytes.Buffer{}}
		err := runInboxOpen(context.Background(), g, opts)
		return out.String(), err
	}

	_, err := run(&InboxOpenOptions{})
	if !errors.Is(err, errNoInbox) || !strings.Contains(err.Error(), "--ask-fallback inbox") {
		t.Fatalf("with no inbox: %v; want errNoInbox with how to start one", err)
	}

	// A record of a process that has exited is not followed.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	if _, err := inbox.Publish(dataDir, inbox.Record{Project: project, URL: "http://127.0.0.1:1/", PID: dead.Process.Pid, UserToken: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(&InboxOpenOptions{}); !errors.Is(err, errNoInbox) {
		t.Fatalf("with a stale record: %v; want errNoInbox", err)
	}
	if recs, _ := inbox.Published(dataDir, project); len(recs) != 0 {
		t.Errorf("the stale record was kept: %+v", recs)
	}

	token, err := inbox.UserToken(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ib := inbox.New(inbox.Options{})
	srv := &http.Server{Handler: ib.Handler(inbox.HandlerOptions{Addr: ln.Addr().String(), Token: token}), ReadHeaderTimeout: time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"
	if _, err := inbox.Publish(dataDir, inbox.Record{Project: project, URL: url, PID: os.Getpid(), UserToken: true}); err != nil {
		t.Fatal(err)
	}
	var opened []string
	open := func(u string) error { opened = append(opened, u); return nil }

	out, err := run(&InboxOpenOptions{Print: true, Open: open})
	if err != nil || !strings.Contains(out, url+"?token="+token) || len(opened) != 0 {
		t.Fatalf("--print: %q, %v, opened %v; want the URL with the token, nothing opened", out, err, opened)
	}
	if _, err := run(&InboxOpenOptions{Open: open}); err != nil || len(opened) != 1 || opened[0] != url+"?token="+token {
		t.Fatalf("open: %v, opened %v; want %s?token=…", err, opened, url)
	}
}
