package inbox_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/serve/inbox"
)

func TestEachProjectHasAStablePortInTheRange(t *testing.T) {
	t.Parallel()
	a, b := inbox.StablePort("/home/me/a"), inbox.StablePort("/home/me/b")
	for _, p := range []int{a, b} {
		if p < inbox.PortBase || p >= inbox.PortBase+inbox.PortSpan {
			t.Errorf("port %d outside %d-%d", p, inbox.PortBase, inbox.PortBase+inbox.PortSpan-1)
		}
	}
	if inbox.StablePort("/home/me/a/") != a {
		t.Error("the same project spelt with a trailing slash got another port")
	}
	if a == b {
		t.Logf("two projects share port %d (possible, 1 in %d)", a, inbox.PortSpan)
	}
}

// TestATakenStablePortFallsBackToTheNext: a second inbox of the same
// project gets another port, the first keeps the stable one.
func TestATakenStablePortFallsBackToTheNext(t *testing.T) {
	project := filepath.Join(t.TempDir(), "proj")
	first, err := inbox.ListenStable("127.0.0.1", project)
	if err != nil {
		t.Skipf("cannot listen on the stable port here: %v", err)
	}
	defer first.Close()
	if got := first.Addr().(*net.TCPAddr).Port; got != inbox.StablePort(project) {
		t.Logf("the stable port %d was taken by something else; got %d", inbox.StablePort(project), got)
	}
	second, err := inbox.ListenStable("127.0.0.1", project)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if first.Addr().String() == second.Addr().String() {
		t.Fatalf("both inboxes on %s", first.Addr())
	}
}

// TestPublishedRecordsAreFoundByProjectAndCarryNoToken: a record is found
// for its project only, names its URL, and is gone once removed.
func TestPublishedRecordsAreFoundByProjectAndCarryNoToken(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	rec := inbox.Record{Project: "/p/one", URL: "http://127.0.0.1:27345/", PID: os.Getpid(), Started: time.Now(), UserToken: true}
	remove, err := inbox.Publish(data, rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := inbox.Published(data, "/p/one")
	if err != nil || len(got) != 1 || got[0].URL != rec.URL || !inbox.Live(got[0]) {
		t.Fatalf("Published = %+v, %v; want the record, live", got, err)
	}
	if other, _ := inbox.Published(data, "/p/two"); len(other) != 0 {
		t.Errorf("another project found %+v", other)
	}
	remove()
	if got, _ := inbox.Published(data, "/p/one"); len(got) != 0 {
		t.Errorf("after remove: %+v", got)
	}
	if _, err := inbox.Publish(data, inbox.Record{Project: "/p/one", URL: "http://example.com:80/"}); err == nil {
		t.Error("a record for another host was published")
	}
}

// TestTheUserTokenIsKeptForTheOwnerAlone: made once and reused, mode
// 0600, and replaced when others could read it.
func TestTheUserTokenIsKeptForTheOwnerAlone(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	tok, err := inbox.UserToken(data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := inbox.UserToken(data)
	if err != nil || again != tok {
		t.Fatalf("second UserToken = %q, %v; want the first, %q", again, err, tok)
	}
	name := filepath.Join(data, "inbox", "token")
	fi, err := os.Stat(name)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v; want 0600", err, fi.Mode())
	}
	if err := os.Chmod(name, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := inbox.ReadUserToken(data); err == nil {
		t.Error("a token others can read was accepted")
	}
	fresh, err := inbox.UserToken(data)
	if err != nil || fresh == tok {
		t.Errorf("UserToken after the leak = %q, %v; want a new one", fresh, err)
	}
}

// TestWaitingCountsTheQuestionsOfALiveInbox, with the token, and refuses
// without it.
func TestWaitingCountsTheQuestionsOfALiveInbox(t *testing.T) {
	t.Parallel()
	ib := inbox.New(inbox.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(ib.Handler(inbox.HandlerOptions{Addr: ln.Addr().String(), Token: "secret"}))
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	url := "http://127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + "/"
	if n, err := inbox.Waiting(context.Background(), url, "secret"); err != nil || n != 0 {
		t.Errorf("Waiting = %d, %v; want 0", n, err)
	}
	if _, err := inbox.Waiting(context.Background(), url, "wrong"); err == nil {
		t.Error("a wrong token was answered")
	}
}

// TestARecordRewrittenToPointAwayIsNotFollowed: a record file edited by
// another process to name a host off this machine (where `toolhost inbox`
// would send the user's token) is skipped, as one naming no port is.
func TestARecordRewrittenToPointAwayIsNotFollowed(t *testing.T) {
	t.Parallel()
	for _, url := range []string{
		"http://example.com:80/",
		"http://10.0.0.1:27345/",
		"http://evil.example@127.0.0.1:27345/",
		"https://127.0.0.1:27345/",
		"http://127.0.0.1/",
	} {
		t.Run(url, func(t *testing.T) {
			t.Parallel()
			data := t.TempDir()
			rec := inbox.Record{Project: "/p/one", URL: "http://127.0.0.1:27345/", PID: os.Getpid(), Started: time.Now(), UserToken: true}
			if _, err := inbox.Publish(data, rec); err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(data, "*", "*.json"))
			if len(files) != 1 {
				t.Fatalf("record files %v; want one", files)
			}
			rec.URL = url
			b, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(files[0], b, 0o600); err != nil {
				t.Fatal(err)
			}
			if got, err := inbox.Published(data, "/p/one"); err != nil || len(got) != 0 {
				t.Fatalf("Published = %+v, %v; want the rewritten record skipped", got, err)
			}
		})
	}
}
