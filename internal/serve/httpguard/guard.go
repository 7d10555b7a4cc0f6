// Package httpguard holds the checks every HTTP server of toolhost puts in
// front of what it serves on a port — the MCP Streamable HTTP server and
// the permission inbox: the Host header must name the bound address (DNS
// rebinding protection), a browser's Origin must be a loopback page, and a
// bearer token, when set, must be sent — the one shared token, or one an
// Authenticator accepts (named tokens, JWTs; callers.go), which also names
// the request's caller. Both servers use this one copy so a fix to a check
// reaches both.
//
// It imports only the standard library.
package httpguard

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Options configure Wrap.
type Options struct {
	// Addr is the host:port the server is bound to. Requests whose Host
	// header names another host are refused: only the bound name or
	// address, or a loopback name when bound to loopback or to every
	// interface, is accepted. Empty: loopback names only.
	Addr string
	// Token, when set, must be sent as "Authorization: Bearer <token>" on
	// every request; others get 401 with Remedy.
	Token string
	// Remedy ends the 401 message: where the token comes from.
	Remedy string
	// Cookie, when set with Token, also accepts the token from the cookie
	// of that name, and sets it when a request carries the token as the
	// query parameter "token" (then redirected to the same path without
	// it): how a browser, whose EventSource cannot send headers, signs in
	// from a printed URL. The cookie is HttpOnly and SameSite=Strict.
	Cookie string
	// Callers, when set, also accepts the bearer tokens it authenticates
	// (named tokens, JWTs), and names each request's caller (CallerOf).
	Callers Authenticator
}

// Wrap applies the checks of opts before h. An authenticated request
// reaches h with its caller in its context (CallerOf).
func Wrap(opts Options, h http.Handler) http.Handler {
	boundHost, boundPort, _ := net.SplitHostPort(opts.Addr)
	var auth Authenticator
	switch {
	case opts.Token != "" && opts.Callers != nil:
		auth = AnyOf{sharedToken(opts.Token), opts.Callers}
	case opts.Token != "":
		auth = sharedToken(opts.Token)
	case opts.Callers != nil:
		auth = opts.Callers
	}
	// Bound to every interface behind a required token, the server is
	// reached by names it cannot know (a Service's, an ingress's, behind
	// a port mapping): the Host check, which keeps a DNS-rebound page off
	// a server that trusts whoever reaches it, has nothing to add there —
	// a rebound page has no token to send, and the browser keeps the
	// inbox's cookie for the name it was set on.
	anyHost := auth != nil && boundHost != "" && IsUnspecified(boundHost)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !anyHost && !HostAllowed(r.Host, boundHost, boundPort) {
			http.Error(w, fmt.Sprintf("Forbidden: Host %q is not this server's address", r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !OriginAllowed(o) && !sameOrigin(o, r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q may not call this server; only pages served from localhost may", o), http.StatusForbidden)
			return
		}
		if auth != nil {
			caller, err := auth.Authenticate(r.Context(), bearer(r.Header.Get("Authorization")))
			if err != nil && opts.Cookie != "" {
				if c, cerr := r.Cookie(opts.Cookie); cerr == nil {
					caller, err = auth.Authenticate(r.Context(), c.Value)
				}
				if q := r.URL.Query().Get("token"); err != nil && q != "" && r.Method == http.MethodGet {
					if _, qerr := auth.Authenticate(r.Context(), q); qerr == nil {
						http.SetCookie(w, &http.Cookie{Name: opts.Cookie, Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
						u := *r.URL
						v := u.Query()
						v.Del("token")
						u.RawQuery = v.Encode()
						http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
						return
					}
				}
			}
			if err != nil {
				w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost"`)
				http.Error(w, "Unauthorized: send Authorization: Bearer <token>, "+opts.Remedy, http.StatusUnauthorized)
				return
			}
			r = r.WithContext(WithCaller(r.Context(), caller))
		}
		h.ServeHTTP(w, r)
	})
}

// HostAllowed accepts the bound host, or a loopback name when the server is
// bound to loopback or to every interface; the port, when present, must be
// the bound one.
func HostAllowed(hostHeader, boundHost, boundPort string) bool {
	host, port, err := net.SplitHostPort(hostHeader)
	if err != nil {
		host, port = hostHeader, ""
	}
	host = strings.Trim(host, "[]")
	if port != "" && boundPort != "" && port != boundPort {
		return false
	}
	if boundHost != "" && strings.EqualFold(host, strings.Trim(boundHost, "[]")) && !IsUnspecified(boundHost) {
		return true
	}
	if boundHost == "" || IsLoopback(boundHost) || IsUnspecified(boundHost) {
		return IsLoopback(host)
	}
	return false
}

// sameOrigin reports whether origin is a page of the host the request
// names (the inbox's page, served by this server under that name).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && u.User == nil && strings.EqualFold(u.Host, host)
}

// OriginAllowed accepts pages served from a loopback host.
func OriginAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return IsLoopback(u.Hostname())
}

// IsLoopback reports whether host is "localhost" or a loopback address.
func IsLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsUnspecified reports whether host is empty or 0.0.0.0 / ::.
func IsUnspecified(host string) bool {
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return host == "" || (ip != nil && ip.IsUnspecified())
}
