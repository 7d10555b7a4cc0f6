package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/internal/serve/jwtauth"
)

// Environment variables of the caller flags.
const (
	tokensFileEnv   = "TOOLHOST_MCP_TOKENS_FILE"
	oidcIssuerEnv   = "TOOLHOST_OIDC_ISSUER"
	oidcAudienceEnv = "TOOLHOST_OIDC_AUDIENCE"
	oidcJWKSEnv     = "TOOLHOST_OIDC_JWKS"
)

// CallerOptions are the flags that name the callers of `toolhost mcp
// --http` beside the one shared --token: named tokens and an identity
// provider. Each caller's MCP sessions are its own.
type CallerOptions struct {
	TokensFile   string // name=sha256:<hash> lines
	OIDCIssuer   string
	OIDCAudience string
	OIDCJWKS     string
	// InboxOnMCP serves the permission inbox on the MCP HTTP server
	// (/inbox) instead of its own port.
	InboxOnMCP bool
	// InboxOperators are the callers (comma-separated) who see and
	// answer every question of the inbox on the MCP port; the others
	// only their own.
	InboxOperators string
}

func addCallerFlags(fs *pflag.FlagSet, o *CallerOptions) {
	fs.StringVar(&o.TokensFile, "tokens-file", "", "with --http: `file` of named bearer tokens, one name=sha256:<hash of the token> a line; each name's sessions are its own (default $"+tokensFileEnv+")")
	fs.StringVar(&o.OIDCIssuer, "oidc-issuer", "", "with --http: accept JWT access tokens of this `issuer` (with --oidc-audience and --oidc-jwks; default $"+oidcIssuerEnv+")")
	fs.StringVar(&o.OIDCAudience, "oidc-audience", "", "with --oidc-issuer: the `audience` tokens must name (default $"+oidcAudienceEnv+")")
	fs.StringVar(&o.OIDCJWKS, "oidc-jwks", "", "with --oidc-issuer: `URL` of the issuer's signing keys (default $"+oidcJWKSEnv+")")
	fs.StringVar(&o.InboxOperators, "inbox-operators", "", "with --inbox-on-mcp and named callers: the caller `names` (tokens' names, issuer#subject, or token for the holders of --token; comma-separated) who see and answer every caller's questions and may trust the project; the others see only their own")
	fs.BoolVar(&o.InboxOnMCP, "inbox-on-mcp", false, "with --http and --ask-fallback inbox: serve the permission inbox at /inbox of the MCP server, behind its authentication, instead of on its own port")
}

// fromEnv fills what the flags left empty from the environment.
func (o *CallerOptions) fromEnv() {
	for _, f := range []struct {
		v   *string
		env string
	}{{&o.TokensFile, tokensFileEnv}, {&o.OIDCIssuer, oidcIssuerEnv}, {&o.OIDCAudience, oidcAudienceEnv}, {&o.OIDCJWKS, oidcJWKSEnv}} {
		if *f.v == "" {
			*f.v = os.Getenv(f.env)
		}
	}
}

// set reports whether any caller is configured beside the shared token.
func (o *CallerOptions) set() bool { return o.TokensFile != "" || o.OIDCIssuer != "" }

// authenticator builds the authenticator of the flags; nil when none is
// set. ctx bounds the JWKS fetches.
func (o *CallerOptions) authenticator(ctx context.Context) (httpguard.Authenticator, error) {
	var as httpguard.AnyOf
	if o.TokensFile != "" {
		f, err := os.Open(o.TokensFile)
		if err != nil {
			return nil, fmt.Errorf("--tokens-file: %w", err)
		}
		toks, err := httpguard.ParseTokens(f, o.TokensFile)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--tokens-file: %w", err)
		}
		as = append(as, toks)
	}
	if o.OIDCIssuer != "" || o.OIDCAudience != "" || o.OIDCJWKS != "" {
		v, err := jwtauth.New(ctx, jwtauth.Config{Issuer: o.OIDCIssuer, Audience: o.OIDCAudience, JWKSURL: o.OIDCJWKS})
		if err != nil {
			return nil, err
		}
		as = append(as, v)
	}
	if len(as) == 0 {
		return nil, nil
	}
	return as, nil
}

// mountInbox is startInbox for an inbox served by the MCP server: no port
// of its own; its handler takes the server's tokens and callers.
// handler is called with the server's address once it listens.
func mountInbox(g *Globals, o InboxOptions, agent string, operators string) (ib *inbox.Inbox, handler func(addr, token string, callers httpguard.Authenticator) http.Handler) {
	ib = inbox.New(inbox.Options{Timeout: o.Timeout, Agent: agent, Logger: g.logger()})
	return ib, func(addr, token string, callers httpguard.Authenticator) http.Handler {
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: permission inbox on http://%s/inbox (a browser: open it once with ?token=<your token>, and it keeps the token)\n", addr)
		return ib.Handler(inbox.HandlerOptions{Addr: addr, Token: token, Callers: callers, Operators: splitNames(operators)})
	}
}

// splitNames is a comma-separated list of names, without blanks.
func splitNames(list string) []string {
	var out []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}
