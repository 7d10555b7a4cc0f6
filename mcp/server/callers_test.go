package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/httpguard"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/session"
)

// One server with named callers, without --stateless: the go-sdk keeps the
// MCP sessions in memory. A session is still its opener's alone — its
// Mcp-Session-Id and a toolhost session named in _meta alike.
func TestAStatefulServerBindsSessionsToTheirCallerToo(t *testing.T) {
	t.Parallel()
	var toks httpguard.Tokens
	for _, name := range []string{"alice", "bob"} {
		if err := toks.Add(name, "tok-"+name); err != nil {
			t.Fatal(err)
		}
	}
	r := newReplica(t, session.NewMemory())
	hs := httptest.NewServer(r.srv.Handler(server.HTTPOptions{Callers: &toks}))
	t.Cleanup(hs.Close)
	alice := connectPlain(t, hs.URL, "tok-alice", "2025-11-25", "always")
	bob := connectPlain(t, hs.URL, "tok-bob", "2025-11-25", "always")
	todos := map[string]any{"todos": []any{map[string]any{"content": "secret", "status": "pending", "priority": "high"}}}
	named := func(pc *plainClient, tool string) *sdk.CallToolResult {
		res, err := pc.cs.CallTool(t.Context(), &sdk.CallToolParams{Meta: sdk.Meta{server.MetaSessionKey: "ses_named"}, Name: tool, Arguments: todos})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := named(alice, "todowrite"); res.IsError {
		t.Fatalf("alice's todowrite in her named session: %s", text(res))
	}
	if res := named(bob, "todoread"); !res.IsError || strings.Contains(text(res), "secret") {
		t.Errorf("bob naming alice's _meta session = %q (error %v); want a refusal", text(res), res.IsError)
	}
	alice.call(t, "todowrite", todos)
	req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"todoread","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", alice.cs.ID())
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer tok-bob")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode < 400 || strings.Contains(string(b), "secret") {
		t.Errorf("bob with alice's Mcp-Session-Id: %d %q; want a refusal", resp.StatusCode, b)
	}
	if res := alice.call(t, "todoread", map[string]any{}); !strings.Contains(text(res), "secret") {
		t.Errorf("alice's own todoread = %q", text(res))
	}
}
