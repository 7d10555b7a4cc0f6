// Package jwtauth authenticates callers of toolhost's HTTP servers by
// OIDC/JWT access tokens, for deployments behind an identity provider: a
// token is accepted when the provider's keys (its JWKS) sign it, its
// issuer and audience are the configured ones and it has not expired; the
// caller is named "issuer#subject", so two providers' subjects never meet.
//
// Verification is github.com/coreos/go-oidc/v3 (maintained, used by
// Kubernetes and Dex) over go-jose: it fetches and caches the JWKS,
// refetches on an unknown key id, accepts only the listed signing
// algorithms (never "none") and checks expiry with a small clock skew.
// Nothing here parses a token by hand.
package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
)

// Config names the identity provider.
type Config struct {
	// Issuer is the "iss" every token must carry, exactly.
	Issuer string
	// Audience is the "aud" a token must include. Required: a token
	// minted for another service of the same provider is not for this one.
	Audience string
	// JWKSURL is where the provider publishes its signing keys
	// (jwks_uri in its discovery document). Required: it is neither
	// guessed from Issuer nor discovered, so that start-up does not
	// depend on the provider being up.
	JWKSURL string
	// Algorithms are the accepted signing algorithms. Default RS256 and
	// ES256.
	Algorithms []string
}

// keyPairAlgs are the signing algorithms a Config may name.
var keyPairAlgs = []string{oidc.RS256, oidc.RS384, oidc.RS512, oidc.ES256, oidc.ES384, oidc.ES512, oidc.PS256, oidc.PS384, oidc.PS512, oidc.EdDSA}

// keyFetchInterval is the least time between two fetches of the
// provider's keys; a key the provider rotates in is accepted at most that
// long after its first token arrives. keyFetchTimeout bounds one fetch.
const (
	keyFetchInterval = 10 * time.Second
	keyFetchTimeout  = 10 * time.Second
)

// errFetchedRecently refuses a fetch of the keys within keyFetchInterval
// of the last.
var errFetchedRecently = errors.New("the signing keys were fetched moments ago; a token naming a key they lack is refused until the next fetch")

// fetchLimit is a transport that lets one request through per every.
type fetchLimit struct {
	base  http.RoundTripper
	every time.Duration
	mu    sync.Mutex
	last  time.Time
}

func (l *fetchLimit) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	if !l.last.IsZero() && time.Since(l.last) < l.every {
		l.mu.Unlock()
		return nil, errFetchedRecently
	}
	l.last = time.Now()
	l.mu.Unlock()
	return l.base.RoundTrip(r)
}

// Verifier is a httpguard.Authenticator of JWTs.
type Verifier struct {
	issuer string
	v      *oidc.IDTokenVerifier
}

var _ httpguard.Authenticator = (*Verifier)(nil)

// New returns a Verifier of cfg; ctx must outlive the Verifier (it bounds
// the fetches of the keys).
func New(ctx context.Context, cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" || cfg.Audience == "" || cfg.JWKSURL == "" {
		return nil, errors.New("jwt authentication: issuer, audience and JWKS URL are all required (--oidc-issuer, --oidc-audience, --oidc-jwks)")
	}
	if u, err := url.Parse(cfg.JWKSURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("jwt authentication: JWKS URL %q: want an http(s) URL", cfg.JWKSURL)
	}
	algs := cfg.Algorithms
	if len(algs) == 0 {
		algs = []string{oidc.RS256, oidc.ES256}
	}
	for _, a := range algs {
		if !slices.Contains(keyPairAlgs, a) {
			return nil, fmt.Errorf("jwt authentication: signing algorithm %q: want one of %s (signatures by a key pair; with an HMAC the secret would be the key the provider publishes)", a, strings.Join(keyPairAlgs, ", "))
		}
	}
	// The provider's keys are fetched through a client that fetches at
	// most once a keyFetchInterval: go-oidc fetches again for any token
	// naming a key it has not cached, and tokens are anyone's to forge.
	ctx = oidc.ClientContext(ctx, &http.Client{Timeout: keyFetchTimeout, Transport: &fetchLimit{base: http.DefaultTransport, every: keyFetchInterval}})
	keys := oidc.NewRemoteKeySet(ctx, cfg.JWKSURL)
	return &Verifier{
		issuer: cfg.Issuer,
		v:      oidc.NewVerifier(cfg.Issuer, keys, &oidc.Config{ClientID: cfg.Audience, SupportedSigningAlgs: algs}),
	}, nil
}

// Authenticate implements httpguard.Authenticator: the caller is
// "issuer#subject".
func (v *Verifier) Authenticate(ctx context.Context, token string) (string, error) {
	if token == "" {
		return "", httpguard.ErrUnknownToken
	}
	tok, err := v.v.Verify(ctx, token)
	if err != nil {
		return "", fmt.Errorf("%w: jwt: %w", httpguard.ErrUnknownToken, err)
	}
	if tok.Subject == "" {
		return "", fmt.Errorf("%w: jwt without a subject", httpguard.ErrUnknownToken)
	}
	return tok.Issuer + "#" + tok.Subject, nil
}
