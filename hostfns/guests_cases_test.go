package hostfns_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
)

// The same request, log line, file write, sample or elicit from a wasm module, a JS tool
// and a Python tool must meet the same decision — refused or answered,
// with the same text — and leave the same lines in the host's log and the
// client's, with the same attributes. Each engine only adapts the wire.
// The guests load once (a JS and a Python engine take seconds) and serve
// every table.
func TestEveryGuestKindMeetsTheSameDecisions(t *testing.T) {
	t.Parallel()
	guests := []guest{wasmGuest(), jsGuest(t), pythonGuest(t)}
	t.Run("HTTP", func(t *testing.T) { httpCases(t, guests) })
	t.Run("log", func(t *testing.T) { logCases(t, guests) })
	t.Run("files", func(t *testing.T) { fileCases(t, guests[1:]) })
	t.Run("sample", func(t *testing.T) { sampleCases(t, guests) })
	t.Run("elicit", func(t *testing.T) { elicitCases(t, guests) })
	t.Run("a sample loop", func(t *testing.T) { loopCases(t, guests) })
}

// httpCases: the same fetch is answered or refused alike, and a refusal
// is logged alike.
func httpCases(t *testing.T, guests []guest) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		case "/big":
			w.Write([]byte(strings.Repeat("x", 2048)))
		default:
			fmt.Fprint(w, "hello")
		}
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	byName := "http://localhost:" + u.Port()

	refusedLine := func(err string) []record {
		return []record{{To: "log", Level: slog.LevelWarn, Message: "guest HTTP request refused",
			Attrs: map[string]string{"tool": toolID, "source": "guest", "session": "s1", "call": "c1", "err": err}}}
	}
	fetches := []struct {
		name      string
		allowed   []string
		max       int64
		url       string
		want      outcome
		wantText  string // in want.Error when it is not known in full
		wantHits  int64  // requests the server may see
		wantLines bool   // a refusal is logged
	}{
		{name: "a granted host answers", allowed: []string{"127.0.0.1"}, url: srv.URL + "/ok",
			want: outcome{Status: 200, Body: "hello"}, wantHits: 1},
		{name: "a host not granted is refused before it is reached", allowed: []string{"api.example.com"}, url: srv.URL + "/ok",
			want:     outcome{Error: "host not allowed: HTTP request to 127.0.0.1 is not allowed; add it to wasm.probe.allowed_hosts in the config to allow it"},
			wantHits: 0, wantLines: true},
		{name: "a redirect to a host not granted is refused", allowed: []string{"127.0.0.1"}, url: srv.URL + "/redirect?to=" + url.QueryEscape(byName+"/ok"),
			wantText: "host not allowed: HTTP request to localhost is not allowed; add it to wasm.probe.allowed_hosts", wantHits: 1, wantLines: true},
		{name: "a granted name that resolves to a private address is refused before it connects", allowed: []string{"localhost"}, url: byName + "/ok",
			wantText: "host not allowed: localhost resolves to the internal address", wantHits: 0, wantLines: true},
		{name: "a body over the cap is refused, not cut", allowed: []string{"127.0.0.1"}, max: 1024, url: srv.URL + "/big",
			want: outcome{Error: "HTTP response from 127.0.0.1 is over 1024 bytes; raise max_output_mb if the tool needs more"}, wantHits: 1},
	}
	for _, tt := range fetches {
		t.Run(tt.name, func(t *testing.T) {
			var first outcome
			for i, g := range guests {
				hits.Store(0)
				rec := newRecorder()
				e := runEnv(rec, hostfns.HTTPPolicy{AllowedHosts: tt.allowed, MaxResponse: tt.max, ConfigKey: "wasm." + toolID})
				got := g.fetch(t, e, tt.url)
				if i == 0 {
					first = got
				}
				switch {
				case tt.wantText != "" && !strings.Contains(got.Error, tt.wantText):
					t.Errorf("%s: %+v, want a refusal with %q", g.name, got, tt.wantText)
				case tt.wantText == "" && got != tt.want:
					t.Errorf("%s: %+v, want %+v", g.name, got, tt.want)
				case got != first:
					t.Errorf("%s: %+v, but %s got %+v", g.name, got, guests[0].name, first)
				}
				if n := hits.Load(); n != tt.wantHits {
					t.Errorf("%s: the server saw %d requests, want %d", g.name, n, tt.wantHits)
				}
				var want []record
				if tt.wantLines {
					want = refusedLine(got.Error)
				}
				if lines := rec.all(); !reflect.DeepEqual(lines, want) {
					t.Errorf("%s logged %+v\nwant %+v", g.name, lines, want)
				}
			}
		})
	}

}

// logCases: the same line is logged alike, to the host's log and the
// client, escaped and capped.
func logCases(t *testing.T, guests []guest) {
	huge := strings.Repeat("a", 1<<20)
	cut := strings.Repeat("a", hostfns.MaxLogBytes) + fmt.Sprintf(" … (%d more bytes cut)", 1<<20-hostfns.MaxLogBytes)
	logs := []struct {
		name, level, msg string
		want             string
		wantLevel        slog.Level
	}{
		{"a line keeps its level and text", "warn", "low on quota", "low on quota", slog.LevelWarn},
		{"newlines and control characters cannot forge a second line or a terminal's screen",
			"info", "done\nlevel=ERROR msg=\"forged\" tool=other\r\x1b[2J\u202egnp.exe\x00",
			`done\nlevel=ERROR msg="forged" tool=other\r\x1b[2J\u202egnp.exe\x00`, slog.LevelInfo},
		{"a huge message is cut at the cap and says how much", "error", huge, cut, slog.LevelError},
	}
	for _, tt := range logs {
		t.Run(tt.name, func(t *testing.T) {
			want := []record{
				{To: "client", Level: tt.wantLevel, Message: tt.want},
				{To: "log", Level: tt.wantLevel, Message: tt.want, Attrs: map[string]string{"tool": toolID, "source": "guest", "session": "s1", "call": "c1"}},
			}
			for _, g := range guests {
				rec := newRecorder()
				g.log(t, runEnv(rec, hostfns.HTTPPolicy{}), tt.level, tt.msg)
				if got := rec.all(); !reflect.DeepEqual(got, want) {
					t.Errorf("%s logged %.300v\nwant %.300v", g.name, got, want)
				}
			}
		})
	}
}

// fileCases: a script tool's files are judged by each engine — the JS
// Bridge on the host, WASI mounts (hostfns.Mount, as a wasm module's) in
// Python — over the one reading of allowed_paths (hostfns.PathGrants), so
// they must refuse and allow the same writes: above all, a writable grant
// does not reach into a folder another grant holds read-only, by any
// name.
func fileCases(t *testing.T, guests []guest) {
	tests := []struct {
		name, path string
		ok         bool
	}{
		{"a file in the writable grant is written", "/work/new.txt", true},
		{"the read-only folder inside it is not", "/work/locked/r.txt", false},
		{"nor through a link to it in the writable folder", "/work/alias/r.txt", false},
		{"nor through a second name (hard link) of its file", "/work/hard.txt", false},
		{"a path outside every grant is not", "/elsewhere/x.txt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, g := range guests {
				proj := t.TempDir()
				locked := filepath.Join(proj, "locked")
				os.MkdirAll(locked, 0o755)
				os.WriteFile(filepath.Join(locked, "r.txt"), []byte("keep"), 0o644)
				os.Symlink("locked", filepath.Join(proj, "alias"))
				os.Link(filepath.Join(locked, "r.txt"), filepath.Join(proj, "hard.txt"))
				e := runEnv(newRecorder(), hostfns.HTTPPolicy{})
				e.paths = map[string]string{proj: "/work", "ro:" + locked: "/work/locked"}
				got := g.write(t, e, tt.path, "changed")
				if (got.Error == "") != tt.ok {
					t.Errorf("%s: %+v, want written=%v", g.name, got, tt.ok)
				}
				if b, _ := os.ReadFile(filepath.Join(locked, "r.txt")); string(b) != "keep" {
					t.Errorf("%s: the read-only file now holds %q", g.name, b)
				}
			}
		})
	}
}

func runEnv(rec recorder, p hostfns.HTTPPolicy) env {
	tc := runtime.NewContext(runtime.Context{SessionID: "s1", CallID: "c1", Tool: toolID}, nil, nil)
	tc.Client.Log = rec.client
	return env{tc: tc, logger: slog.New(rec), policy: p}
}
