package builtins

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const webfetchTestPage = `<!doctype html><html><head><title>T</title><style>body{color:red}</style></head>
<body><h1>Title</h1><p>Hello <b>world</b>, see <a href="/x">this</a>.</p>
<script>steal()</script><noscript>enable js</noscript><ul><li>one</li><li>two</li></ul></body></html>`

var webfetchPNG = []byte("\x89PNG\r\n\x1a\n fake image bytes")

func webfetchTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("X-Accept", r.Header.Get("Accept"))
		w.Write([]byte(webfetchTestPage))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("just <text>"))
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(webfetchPNG)
	})
	mux.HandleFunc("/declared-large", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "6291456")
		w.Write(bytes.Repeat([]byte("a"), 6<<20))
	})
	mux.HandleFunc("/chunked-large", func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for range 90 { // 5.6 MB with no Content-Length
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	})
	mux.HandleFunc("/missing", http.NotFound)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestWebFetchFormats(t *testing.T) {
	t.Parallel()
	srv := webfetchTestServer(t)
	tests := []struct {
		name   string
		params webFetchParams
		has    []string
		hasNot []string
	}{
		{
			name:   "HTML becomes markdown by default",
			params: webFetchParams{URL: srv.URL + "/page"},
			has:    []string{"# Title", "Hello **world**", "[this](/x)", "- one"},
			hasNot: []string{"steal()", "color:red", "<p>"},
		},
		{
			name:   "HTML becomes text without scripts and styles",
			params: webFetchParams{URL: srv.URL + "/page", Format: "text"},
			has:    []string{"Title\n", "Hello world, see this.", "one\ntwo"},
			hasNot: []string{"steal()", "color:red", "enable js", "<", "**"},
		},
		{
			name:   "html is returned as is",
			params: webFetchParams{URL: srv.URL + "/page", Format: "html"},
			has:    []string{"<script>steal()</script>", "<h1>Title</h1>"},
		},
		{
			name:   "a non-HTML body is returned as is",
			params: webFetchParams{URL: srv.URL + "/plain", Format: "markdown"},
			has:    []string{"just <text>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := callSearchTool(t, WebFetch(), t.TempDir(), tt.params, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.has {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%s", s, res.Output)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(res.Output, s) {
					t.Errorf("output has %q:\n%s", s, res.Output)
				}
			}
			if res.Metadata["statusCode"] != 200 {
				t.Errorf("metadata = %v", res.Metadata)
			}
		})
	}
}

func TestWebFetchSendsAnAcceptHeaderForTheFormat(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Accept"))
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	for _, format := range []string{"markdown", "text", "html"} {
		if _, err := callSearchTool(t, WebFetch(), t.TempDir(), webFetchParams{URL: srv.URL, Format: format}, nil); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, prefix := range []string{"text/markdown;q=1.0", "text/plain;q=1.0", "text/html;q=1.0"} {
		if i >= len(got) || !strings.HasPrefix(got[i], prefix) {
			t.Errorf("request %d Accept = %q, want it to start with %q", i, got, prefix)
		}
	}
}

func TestWebFetchReturnsImagesAsAttachments(t *testing.T) {
	t.Parallel()
	srv := webfetchTestServer(t)
	res, err := callSearchTool(t, WebFetch(), t.TempDir(), webFetchParams{URL: srv.URL + "/image"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(webfetchPNG)
	if len(res.Attachments) != 1 || res.Attachments[0].URL != want || res.Attachments[0].MIME != "image/png" {
		t.Errorf("attachments = %+v", res.Attachments)
	}
	if res.Output != "Image fetched successfully" {
		t.Errorf("output = %q", res.Output)
	}
}

func TestWebFetchErrors(t *testing.T) {
	t.Parallel()
	srv := webfetchTestServer(t)
	tests := []struct {
		name   string
		params webFetchParams
		want   string
		asked  bool
	}{
		{"a non-http scheme is refused before asking", webFetchParams{URL: "file:///etc/passwd"}, "must start with http:// or https://", false},
		{"a URL without a host is refused", webFetchParams{URL: "http://"}, "must start with http:// or https://", false},
		{"an unknown format is refused", webFetchParams{URL: srv.URL + "/page", Format: "pdf"}, `invalid format "pdf"`, false},
		{"a declared size over 5 MB is refused", webFetchParams{URL: srv.URL + "/declared-large"}, "exceeds 5MB limit", true},
		{"a streamed body over 5 MB is refused", webFetchParams{URL: srv.URL + "/chunked-large"}, "exceeds 5MB limit", true},
		{"a slow server times out", webFetchParams{URL: srv.URL + "/slow", Timeout: 0.2}, "timed out after 200ms", true},
		{"an error status is reported", webFetchParams{URL: srv.URL + "/missing"}, "status code: 404", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			asks := &searchAsks{}
			_, err := callSearchTool(t, WebFetch(), t.TempDir(), tt.params, asks)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			req := asks.find("webfetch")
			if (req != nil) != tt.asked {
				t.Errorf("asked webfetch = %v, want %v", req != nil, tt.asked)
			}
			if req != nil && req.Patterns[0] != tt.params.URL {
				t.Errorf("webfetch pattern = %q, want the URL", req.Patterns[0])
			}
		})
	}
}

func TestWebFetchPermissionDenialStopsTheRequest(t *testing.T) {
	t.Parallel()
	var hit atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit.Store(true) }))
	t.Cleanup(srv.Close)
	_, err := callSearchTool(t, WebFetch(), t.TempDir(), webFetchParams{URL: srv.URL}, &searchAsks{deny: "webfetch"})
	if err == nil || hit.Load() {
		t.Errorf("err = %v, server hit = %v; want a rejection and no request", err, hit.Load())
	}
}
