package builtins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// searchServer is a local endpoint speaking the search MCP protocol: one
// JSON-RPC tools/call per POST, answered by reply as an event stream (or
// plain JSON when reply says so). It records the calls it received.
type searchServer struct {
	*httptest.Server
	mu    sync.Mutex
	calls []searchRequest
}

type searchRequest struct {
	Key    string
	Accept string
	Body   struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
		Params  struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
}

// reply returns the status, content type and body to answer with.
type searchReply func(req searchRequest) (int, string, string)

func sseResult(text string) searchReply {
	return func(searchRequest) (int, string, string) {
		res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}})
		return 200, "text/event-stream", ": keep-alive\n\nevent: message\ndata: " + string(res) + "\n\n"
	}
}

func newSearchServer(t *testing.T, reply searchReply) *searchServer {
	s := &searchServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req searchRequest
		req.Key, req.Accept = r.URL.Query().Get("exaApiKey"), r.Header.Get("Accept")
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req.Body) != nil {
			http.Error(w, "want a JSON-RPC POST", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.calls = append(s.calls, req)
		s.mu.Unlock()
		status, ctype, body := reply(req)
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func searchContext(srv *searchServer, ask func(context.Context, permission.Request) error) *runtime.Context {
	cfg := &config.Config{Search: &config.Search{Endpoint: srv.URL + "/mcp", APIKey: "exa-key"}}
	return runtime.NewContext(runtime.Context{SessionID: "s", Config: cfg}, nil, ask)
}

func TestWebSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reply   searchReply
		args    webSearchParams
		want    string
		wantErr string
		check   func(t *testing.T, req searchRequest)
	}{
		{
			name:  "returns the text of an event-stream answer and fills in defaults",
			reply: sseResult("Title: Go 1.26\nURL: https://go.dev/doc/go1.26"),
			args:  webSearchParams{Query: "go 1.26 release notes"},
			want:  "Title: Go 1.26\nURL: https://go.dev/doc/go1.26",
			check: func(t *testing.T, req searchRequest) {
				b := req.Body
				if b.JSONRPC != "2.0" || b.Method != "tools/call" || b.Params.Name != "web_search_exa" {
					t.Errorf("request %+v", b)
				}
				if a := b.Params.Arguments; a["query"] != "go 1.26 release notes" || a["type"] != "auto" || a["numResults"] != float64(8) || a["livecrawl"] != "fallback" {
					t.Errorf("arguments %v", a)
				}
				if req.Key != "exa-key" || !strings.Contains(req.Accept, "text/event-stream") {
					t.Errorf("key %q accept %q", req.Key, req.Accept)
				}
			},
		},
		{
			name: "reads a plain JSON answer too, and passes the caller's options",
			reply: func(searchRequest) (int, string, string) {
				return 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"deep result"}]}}`
			},
			args: webSearchParams{Query: "q", NumResults: 3, Type: "deep", Livecrawl: "preferred", ContextMaxCharacters: 500},
			want: "deep result",
			check: func(t *testing.T, req searchRequest) {
				if a := req.Body.Params.Arguments; a["numResults"] != float64(3) || a["type"] != "deep" || a["livecrawl"] != "preferred" || a["contextMaxCharacters"] != float64(500) {
					t.Errorf("arguments %v", a)
				}
			},
		},
		{
			name: "an answer without content says nothing was found",
			reply: func(searchRequest) (int, string, string) {
				return 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"
			},
			args: webSearchParams{Query: "q"},
			want: "No search results found. Please try a different query.",
		},
		{
			name: "a JSON-RPC error is reported",
			reply: func(searchRequest) (int, string, string) {
				return 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"bad query\"}}\n\n"
			},
			args:    webSearchParams{Query: "q"},
			wantErr: "search endpoint error -32602: bad query",
		},
		{
			name: "a tool error from the endpoint is reported",
			reply: func(searchRequest) (int, string, string) {
				return 200, "application/json", `{"result":{"isError":true,"content":[{"type":"text","text":"quota exceeded"}]}}`
			},
			args:    webSearchParams{Query: "q"},
			wantErr: "search failed: quota exceeded",
		},
		{
			name:    "an HTTP failure names the status",
			reply:   func(searchRequest) (int, string, string) { return 503, "text/plain", "overloaded" },
			args:    webSearchParams{Query: "q"},
			wantErr: "503 Service Unavailable: overloaded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newSearchServer(t, tt.reply)
			var asked []permission.Request
			res, err := invokeTool(t, WebSearch(), searchContext(srv, func(_ context.Context, r permission.Request) error {
				asked = append(asked, r)
				return nil
			}), tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tt.want || res.Title != "Web search: "+tt.args.Query {
				t.Errorf("title %q output %q", res.Title, res.Output)
			}
			if len(asked) != 1 || asked[0].Permission != "websearch" || asked[0].Patterns[0] != tt.args.Query {
				t.Errorf("asked %+v", asked)
			}
			if tt.check != nil {
				tt.check(t, srv.calls[0])
			}
		})
	}
}

func TestSearchRefusals(t *testing.T) {
	t.Parallel()
	srv := newSearchServer(t, sseResult("never"))
	denied := errors.New("stand-in for a permission error")
	tests := []struct {
		name string
		tool runtime.Tool
		tc   *runtime.Context
		args any
		want error
		msg  string
	}{
		{"a denied websearch returns the permission error unchanged", WebSearch(), searchContext(srv, func(context.Context, permission.Request) error { return denied }), webSearchParams{Query: "q"}, denied, ""},
		{"a denied codesearch returns the permission error unchanged", CodeSearch(), searchContext(srv, func(context.Context, permission.Request) error { return denied }), codeSearchParams{Query: "q"}, denied, ""},
		{"without search config the call says how to configure it", WebSearch(), runtime.NewContext(runtime.Context{Config: &config.Config{}}, nil, allowAll), webSearchParams{Query: "q"}, nil, `add "search"`},
		{"an empty query is refused", CodeSearch(), searchContext(srv, allowAll), codeSearchParams{Query: " "}, nil, "query is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := invokeTool(t, tt.tool, tt.tc, tt.args)
			if tt.want != nil && err != tt.want || tt.msg != "" && (err == nil || !strings.Contains(err.Error(), tt.msg)) {
				t.Errorf("error %v", err)
			}
		})
	}
	if len(srv.calls) != 0 {
		t.Errorf("the endpoint was called %d times", len(srv.calls))
	}
}

func FuzzSearchText(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`))
	f.Add([]byte("data: not json\r\ndata: {\"result\":{\"isError\":true,\"content\":[{\"text\":\"e\"}]}}\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := searchText(data)
		if err != nil && text != "" {
			t.Fatalf("both text %q and error %v", text, err)
		}
	})
}
