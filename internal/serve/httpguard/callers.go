package httpguard

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Callers. A server shared by several people or agents must tell them
// apart: an MCP session, its approvals and its todos belong to whoever
// opened it, and another caller naming its id must not inherit them. So
// beside the one shared token (Options.Token) the guard takes an
// Authenticator, which turns the bearer token of a request into the name
// of a caller; the name travels in the request's context (CallerOf) to
// whatever keys state by caller.
//
// Two authenticators ship: Tokens (named tokens, kept as SHA-256 hashes so
// the file that lists them gives nobody a token) and, in internal/serve/jwtauth,
// verification of OIDC/JWT access tokens against an identity provider's
// keys. AnyOf tries several in turn.

// Authenticator names the caller a bearer token belongs to. It returns an
// error for a token it does not accept; the error is logged, never shown.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (caller string, err error)
}

// ErrUnknownToken is the refusal of a token no authenticator accepts.
var ErrUnknownToken = errors.New("unknown bearer token")

type callerKey struct{}

// WithCaller returns ctx carrying the caller's name.
func WithCaller(ctx context.Context, caller string) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

// CallerOf is the caller Wrap authenticated for the request whose context
// ctx is (or derives from): a token's name, "iss#sub" for a JWT, the
// constant SharedCaller for the one shared token, and "" when the server
// takes no token (loopback).
func CallerOf(ctx context.Context) string {
	c, _ := ctx.Value(callerKey{}).(string)
	return c
}

// SharedCaller is the caller of every request authenticated with
// Options.Token: with one shared token, all its holders are one caller.
const SharedCaller = "token"

// Tokens authenticates named bearer tokens by their SHA-256 hashes. Each
// comparison is constant-time and every entry is compared, so the time a
// refusal takes tells nothing of which token came close.
type Tokens struct {
	names  []string
	hashes [][sha256.Size]byte
}

// Add accepts token as the caller name. It refuses an empty name or a
// token that is empty or holds white space (a token pasted with its line
// break would otherwise be a different secret from the one sent).
func (t *Tokens) Add(name, token string) error {
	if err := checkToken(token); err != nil {
		return fmt.Errorf("token %q: %w", name, err)
	}
	return t.AddHash(name, sha256.Sum256([]byte(token)))
}

// AddHash accepts the token whose SHA-256 hash is sum as the caller name.
func (t *Tokens) AddHash(name string, sum [sha256.Size]byte) error {
	if name == "" || strings.ContainsFunc(name, unicode.IsSpace) || strings.Contains(name, "#") {
		return fmt.Errorf("token name %q: want a non-empty name without white space or '#'", name)
	}
	if name == SharedCaller {
		return fmt.Errorf("token name %q is the caller of the shared --token; name it otherwise", name)
	}
	for i, n := range t.names {
		if n == name {
			return fmt.Errorf("token name %q given twice", name)
		}
		if subtle.ConstantTimeCompare(t.hashes[i][:], sum[:]) == 1 {
			return fmt.Errorf("tokens %q and %q are the same token; give each caller its own", n, name)
		}
	}
	t.names = append(t.names, name)
	t.hashes = append(t.hashes, sum)
	return nil
}

// Len is how many tokens are accepted.
func (t *Tokens) Len() int { return len(t.names) }

// Authenticate implements Authenticator.
func (t *Tokens) Authenticate(_ context.Context, token string) (string, error) {
	if checkToken(token) != nil {
		return "", ErrUnknownToken
	}
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range t.hashes {
		if subtle.ConstantTimeCompare(t.hashes[i][:], sum[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", ErrUnknownToken
	}
	return t.names[found], nil
}

func checkToken(token string) error {
	if token == "" {
		return errors.New("empty token")
	}
	if strings.ContainsFunc(token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return errors.New("token holds white space or control characters")
	}
	return nil
}

// ParseTokens reads a tokens file: one "name=sha256:<64 hex digits>" a
// line (the hash of the token, as `printf %s "$TOKEN" | sha256sum`
// prints it), blank lines and lines starting with '#' ignored. file names
// the source in errors.
func ParseTokens(r io.Reader, file string) (*Tokens, error) {
	t := &Tokens{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		name, hash, ok := strings.Cut(text, "=")
		hexSum, isSHA := strings.CutPrefix(strings.TrimSpace(hash), "sha256:")
		sum, err := hex.DecodeString(hexSum)
		if !ok || !isSHA || err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("%s:%d: want name=sha256:<64 hex digits> (the hash of the token, printf %%s \"$TOKEN\" | sha256sum), not the token itself", file, line)
		}
		if err := t.AddHash(strings.TrimSpace(name), [sha256.Size]byte(sum)); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if t.Len() == 0 {
		return nil, fmt.Errorf("%s: no tokens; add lines name=sha256:<hash of the token>", file)
	}
	return t, nil
}

// AnyOf accepts a token any of as accepts, asking them in order.
type AnyOf []Authenticator

// Authenticate implements Authenticator.
func (as AnyOf) Authenticate(ctx context.Context, token string) (string, error) {
	errs := []error{ErrUnknownToken}
	for _, a := range as {
		caller, err := a.Authenticate(ctx, token)
		if err == nil && caller != "" {
			return caller, nil
		}
		if err != nil && !errors.Is(err, ErrUnknownToken) {
			errs = append(errs, err)
		}
	}
	return "", errors.Join(errs...)
}

// sharedToken authenticates Options.Token as SharedCaller.
type sharedToken string

func (s sharedToken) Authenticate(_ context.Context, token string) (string, error) {
	if checkToken(token) == nil && subtle.ConstantTimeCompare([]byte(token), []byte(s)) == 1 {
		return SharedCaller, nil
	}
	return "", ErrUnknownToken
}

// bearer is the token of an Authorization header, "" when it is not a
// bearer credential.
func bearer(header string) string {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return token
}
