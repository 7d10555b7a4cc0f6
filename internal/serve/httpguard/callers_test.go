package httpguard

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func hashLine(name, token string) string {
	sum := sha256.Sum256([]byte(token))
	return name + "=sha256:" + hex.EncodeToString(sum[:]) + "\n"
}

func TestNamedTokensNameTheirCallerAndRefuseEverythingElse(t *testing.T) {
	t.Parallel()
	toks, err := ParseTokens(strings.NewReader("# callers\n"+hashLine("alice", "tok-alice")+"\n"+hashLine("bob", "tok-bob")), "tokens")
	if err != nil {
		t.Fatal(err)
	}
	var seen string
	h := Wrap(Options{Addr: "127.0.0.1:1", Callers: toks}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = CallerOf(r.Context())
	}))
	tests := []struct {
		name   string
		header string
		want   string // caller; "" means refused
	}{
		{name: "alice's token is alice", header: "Bearer tok-alice", want: "alice"},
		{name: "bob's token is bob", header: "Bearer tok-bob", want: "bob"},
		{name: "the scheme in lower case is accepted", header: "bearer tok-bob", want: "bob"},
		{name: "no header is refused", header: ""},
		{name: "an empty token is refused", header: "Bearer "},
		{name: "the token with a trailing space is refused", header: "Bearer tok-alice "},
		{name: "the token after two spaces is refused", header: "Bearer  tok-alice"},
		{name: "the token with a line break is refused", header: "Bearer tok-alice\t"},
		{name: "a prefix of a token is refused", header: "Bearer tok-alic"},
		{name: "the hash instead of the token is refused", header: "Bearer " + strings.TrimPrefix(strings.TrimSpace(strings.SplitN(hashLine("a", "tok-alice"), "=", 2)[1]), "sha256:")},
		{name: "basic credentials are refused", header: "Basic dG9rLWFsaWNl"},
		{name: "the token without a scheme is refused", header: "tok-alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = "-"
			req := httptest.NewRequest("POST", "/", nil)
			req.Host = "127.0.0.1:1"
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if tt.want == "" {
				if rec.Code != http.StatusUnauthorized || seen != "-" {
					t.Fatalf("status %d, caller %q; want 401 and the handler not reached", rec.Code, seen)
				}
				return
			}
			if rec.Code != http.StatusOK || seen != tt.want {
				t.Fatalf("status %d, caller %q; want 200 as %q", rec.Code, seen, tt.want)
			}
		})
	}
}

func TestATokensFileThatHoldsATokenOrAClashIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, want string }{
		{name: "a plain token", file: "alice=tok-alice\n", want: "not the token itself"},
		{name: "a short hash", file: "alice=sha256:abcd\n", want: "64 hex digits"},
		{name: "a name given twice", file: hashLine("alice", "a") + hashLine("alice", "b"), want: "given twice"},
		{name: "one token under two names", file: hashLine("alice", "a") + hashLine("bob", "a"), want: "same token"},
		{name: "a name with a space", file: hashLine("al ice", "a"), want: "without white space"},
		{name: "no tokens", file: "# nobody\n", want: "no tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseTokens(strings.NewReader(tt.file), "tokens")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want one saying %q", err, tt.want)
			}
		})
	}
}

func TestTheSharedTokenIsOneCallerBesideTheNamedOnes(t *testing.T) {
	t.Parallel()
	var toks Tokens
	if err := toks.Add("alice", "tok-alice"); err != nil {
		t.Fatal(err)
	}
	if err := toks.Add("bob", "with space"); err == nil {
		t.Fatal("a token with white space was accepted")
	}
	var seen string
	h := Wrap(Options{Token: "shared", Callers: &toks}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = CallerOf(r.Context()) }))
	for token, want := range map[string]string{"shared": SharedCaller, "tok-alice": "alice"} {
		req := httptest.NewRequest("POST", "/", nil)
		req.Host = "127.0.0.1"
		req.Header.Set("Authorization", "Bearer "+token)
		h.ServeHTTP(httptest.NewRecorder(), req)
		if seen != want {
			t.Errorf("caller of %q = %q, want %q", token, seen, want)
		}
	}
}

// The one shared token's holders are the caller SharedCaller; a named
// token of that name would be the same caller, its sessions theirs.
func TestANamedTokenCannotTakeTheSharedTokensCallerName(t *testing.T) {
	t.Parallel()
	if _, err := ParseTokens(strings.NewReader(hashLine(SharedCaller, "tok-x")), "tokens"); err == nil {
		t.Fatalf("a tokens file naming a caller %q was accepted", SharedCaller)
	}
	var toks Tokens
	if err := toks.Add(SharedCaller, "tok-x"); err == nil {
		t.Fatalf("a named token %q was accepted", SharedCaller)
	}
}
