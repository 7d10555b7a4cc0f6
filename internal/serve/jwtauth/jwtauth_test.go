package jwtauth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// provider is an identity provider on loopback: a JWKS with one key.
type provider struct {
	key  *rsa.PrivateKey
	jwks *httptest.Server
}

func newProvider(t *testing.T) *provider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _ = json.NewEncoder(w).Encode(set) }))
	t.Cleanup(srv.Close)
	return &provider{key: key, jwks: srv}
}

func (p *provider) sign(t *testing.T, key *rsa.PrivateKey, claims jwt.Claims) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1").WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestJWTsNameTheirSubjectAndEveryForgeryIsRefused(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	const iss, aud = "https://id.test", "toolhost"
	v, err := New(context.Background(), Config{Issuer: iss, Audience: aud, JWKSURL: p.jwks.URL})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	now := time.Now()
	good := jwt.Claims{Issuer: iss, Subject: "alice", Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now)}
	with := func(f func(*jwt.Claims)) jwt.Claims { c := good; f(&c); return c }
	unsigned := func(c jwt.Claims) string {
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
		b, _ := json.Marshal(c)
		return h + "." + base64.RawURLEncoding.EncodeToString(b) + "."
	}
	valid := p.sign(t, p.key, good)
	tests := []struct {
		name, token, want string // want: the caller; "" refused
	}{
		{name: "a valid token names issuer and subject", token: valid, want: iss + "#alice"},
		{name: "an expired token is refused", token: p.sign(t, p.key, with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-time.Hour)) }))},
		{name: "another issuer is refused", token: p.sign(t, p.key, with(func(c *jwt.Claims) { c.Issuer = "https://evil.test" }))},
		{name: "another audience is refused", token: p.sign(t, p.key, with(func(c *jwt.Claims) { c.Audience = jwt.Audience{"other"} }))},
		{name: "a token signed by another key is refused", token: p.sign(t, other, good)},
		{name: "alg none is refused", token: unsigned(good)},
		{name: "a token without a subject is refused", token: p.sign(t, p.key, with(func(c *jwt.Claims) { c.Subject = "" }))},
		{name: "a token with its signature cut is refused", token: valid[:strings.LastIndex(valid, ".")+1]},
		{name: "the empty token is refused", token: ""},
		{name: "garbage is refused", token: "not.a.jwt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Authenticate(context.Background(), tt.token)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("accepted as %q", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("= %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestAVerifierWithoutAudienceOrKeysIsNotBuilt(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{{Issuer: "i", JWKSURL: "http://x"}, {Issuer: "i", Audience: "a"}, {Issuer: "i", Audience: "a", JWKSURL: "file:///etc/keys"}} {
		if _, err := New(context.Background(), cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

// A token is anyone's to forge, and go-oidc fetches the provider's keys
// again for every token naming a key it has not cached: without a bound,
// each forged request would be a request to the identity provider.
func TestForgedTokensNamingUnknownKeysDoNotFetchTheKeysEachTime(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	var fetches atomic.Int32
	counted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		p.jwks.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(counted.Close)
	const iss, aud = "https://id.test", "toolhost"
	v, err := New(context.Background(), Config{Issuer: iss, Audience: aud, JWKSURL: counted.URL})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	good := jwt.Claims{Issuer: iss, Subject: "alice", Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
	if _, err := v.Authenticate(context.Background(), p.sign(t, p.key, good)); err != nil {
		t.Fatalf("a valid token: %v", err)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	for i := range 30 {
		sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: other}, (&jose.SignerOptions{}).WithHeader("kid", fmt.Sprintf("forged-%d", i)))
		raw, _ := jwt.Signed(sig).Claims(good).Serialize()
		if _, err := v.Authenticate(context.Background(), raw); err == nil {
			t.Fatal("a forged token was accepted")
		}
	}
	if n := fetches.Load(); n > 2 {
		t.Errorf("30 forged tokens fetched the keys %d times; want at most one fetch more than the first", n)
	}
	if _, err := v.Authenticate(context.Background(), p.sign(t, p.key, good)); err != nil {
		t.Errorf("a valid token after the forgeries: %v", err)
	}
}

// Only signatures by a key pair: with an HMAC algorithm the "secret" would
// be the key the provider publishes, and anyone could sign with it.
func TestAVerifierOfSymmetricOrNoAlgorithmsIsNotBuilt(t *testing.T) {
	t.Parallel()
	for _, alg := range []string{"HS256", "HS512", "none", "hs256"} {
		if _, err := New(context.Background(), Config{Issuer: "i", Audience: "a", JWKSURL: "http://x", Algorithms: []string{alg}}); err == nil {
			t.Errorf("New accepted the algorithm %q", alg)
		}
	}
}

func TestAnHMACTokenSignedWithThePublicKeyAndATokenNotYetValidAreRefused(t *testing.T) {
	t.Parallel()
	p := newProvider(t)
	const iss, aud = "https://id.test", "toolhost"
	v, err := New(context.Background(), Config{Issuer: iss, Audience: aud, JWKSURL: p.jwks.URL})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	good := jwt.Claims{Issuer: iss, Subject: "alice", Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &p.key.PublicKey, KeyID: "k1"})
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: pub}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	hmac, _ := jwt.Signed(sig).Claims(good).Serialize()
	early := good
	early.NotBefore = jwt.NewNumericDate(now.Add(time.Hour))
	for name, tok := range map[string]string{"HS256 with the public key": hmac, "nbf an hour ahead": p.sign(t, p.key, early)} {
		if got, err := v.Authenticate(context.Background(), tok); err == nil {
			t.Errorf("%s: accepted as %q", name, got)
		}
	}
}
