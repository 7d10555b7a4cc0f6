package server_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/serve/jwtauth"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/session"
)

func TestJWTSubjectsOfOneProviderAreSeparateCallersOfAFleet(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k", Algorithm: "RS256", Use: "sig"}}}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _ = json.NewEncoder(w).Encode(set) }))
	t.Cleanup(jwks.Close)
	const iss, aud = "https://id.test", "toolhost"
	v, err := jwtauth.New(context.Background(), jwtauth.Config{Issuer: iss, Audience: aud, JWKSURL: jwks.URL})
	if err != nil {
		t.Fatal(err)
	}
	sign := func(sub string, exp time.Duration) string {
		sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k"))
		raw, err := jwt.Signed(sig).Claims(jwt.Claims{Issuer: iss, Subject: sub, Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(time.Now().Add(exp))}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	store := session.NewMemory()
	var targets []*url.URL
	for range 2 {
		r := newReplica(t, store)
		hs := httptest.NewServer(r.srv.Handler(server.HTTPOptions{Stateless: true, Callers: v}))
		t.Cleanup(hs.Close)
		u, _ := url.Parse(hs.URL)
		targets = append(targets, u)
	}
	var next atomic.Int64
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := targets[int(next.Add(1))%len(targets)]
		(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }}).ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)

	alice := connectPlain(t, lb.URL, sign("alice", time.Hour), "2025-11-25", "always")
	alice.call(t, "todowrite", map[string]any{"todos": []any{map[string]any{"content": "alice's", "status": "pending", "priority": "high"}}})
	if res := alice.call(t, "todoread", map[string]any{}); !strings.Contains(text(res), "alice's") {
		t.Fatalf("alice's todoread = %q", text(res))
	}
	// Carol signs in as herself and names alice's session: not found.
	req, _ := http.NewRequest("POST", lb.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"todoread","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", alice.cs.ID())
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+sign("carol", time.Hour))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("carol naming alice's session: status %d; want 404", resp.StatusCode)
	}
	// An expired token of alice's is refused outright.
	tr := &sdk.StreamableClientTransport{Endpoint: lb.URL, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearerTransport{sign("alice", -time.Minute)}}}
	if _, err := sdk.NewClient(&sdk.Implementation{Name: "late", Version: "v0"}, nil).Connect(context.Background(), tr, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("connect with an expired token: %v; want Unauthorized", err)
	}
}
