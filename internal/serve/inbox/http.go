package inbox

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
	"github.com/toolhost/toolhost/runtime/permission"
)

// TokenEnv is the environment variable holding the inbox's bearer token
// when --inbox-token is not given.
const TokenEnv = "TOOLHOST_INBOX_TOKEN"

// tokenCookie is the cookie a browser keeps the token in once it opened
// the printed URL with ?token=.
const tokenCookie = "toolhost_inbox"

// maxBody bounds a POST body; a reply is a few hundred bytes.
const maxBody = 16 << 10

// maxEventStreams caps the event streams open at once: each is a goroutine
// that renders the whole state at every change. A person needs a few (a
// tab or two, a script); more are refused until some close.
const maxEventStreams = 32

// Clients that hold a connection without using it are dropped: a body
// must arrive within bodyTimeout, and a kept-alive connection may sit idle
// for idleTimeout. (A server-wide ReadTimeout would also cut the event
// streams, so the body's deadline is set where a body is read.)
var (
	bodyTimeout = 10 * time.Second
	idleTimeout = 2 * time.Minute
)

// contentSecurityPolicy allows the page's own script, style and requests,
// and nothing else: no inline script or style, no frames, no forms
// posting elsewhere.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// webFS is the page's script and style sheet (the page is render.go).
//
//go:embed web
var webFS embed.FS

// HandlerOptions configure Handler.
type HandlerOptions struct {
	// Addr is the address the inbox is bound to, for the Host check.
	Addr string
	// Token, when set, is required on every request: as a bearer token,
	// or, for a browser, from the cookie set by opening the page with
	// ?token=. Required when Addr is not loopback (CheckBind).
	Token string
	// Callers, when set, also accepts the bearer tokens it authenticates
	// (the named tokens and identity provider of the MCP server the inbox
	// is mounted on).
	Callers httpguard.Authenticator
	// Operators are the callers (of Callers) who see and answer every
	// question, revoke in any session and may trust the project. With
	// Callers set, everyone else sees only what its own calls asked
	// (scope.go); without Callers, whoever passes the token check is an
	// operator.
	Operators []string
}

// CheckBind refuses to serve the inbox beyond loopback without a token:
// anyone who reached it could allow any call.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("inbox address %q: %w; use host:port such as 127.0.0.1:8766", addr, err)
	}
	if httpguard.IsLoopback(host) || token != "" {
		return nil
	}
	return fmt.Errorf("inbox address %s is not loopback: anyone who reaches it could allow any tool call; set a token with --inbox-token or %s, or bind 127.0.0.1", addr, TokenEnv)
}

// Handler serves the page and the API, behind the Host, Origin and token
// checks (internal/serve/httpguard) and, for writes, net/http's
// CrossOriginProtection and a JSON content type, which a cross-site form
// cannot send.
func (ib *Inbox) Handler(opts HandlerOptions) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", ib.page)
	mux.HandleFunc("GET /fragments/requests", ib.fragment("requests"))
	mux.HandleFunc("GET /fragments/sessions", ib.fragment("sessions"))
	mux.Handle("GET /static/", http.FileServerFS(staticFS()))
	mux.HandleFunc("GET /api/requests", ib.apiRequests)
	mux.HandleFunc("GET /api/events", ib.apiEvents)
	mux.HandleFunc("POST /api/requests/{id}/reply", ib.apiReply)
	mux.HandleFunc("GET /api/sessions", ib.apiSessions)
	mux.HandleFunc("POST /api/sessions/{id}/revoke", ib.apiRevoke)
	mux.HandleFunc("GET /api/rules", ib.apiRules)
	mux.HandleFunc("GET /api/trust", ib.apiTrustGet)
	mux.HandleFunc("POST /api/trust", ib.apiTrust)
	cop := http.NewCrossOriginProtection()
	return httpguard.Wrap(httpguard.Options{
		Addr:    opts.Addr,
		Token:   opts.Token,
		Callers: opts.Callers,
		Remedy:  "the inbox token (a browser: run `toolhost inbox` in the project, which opens the page signed in, or open the URL it prints)",
		Cookie:  tokenCookie,
	}, scoped(opts, securityHeaders(cop.Handler(mux))))
}

// Serve serves the inbox on ln until ctx ends.
func (ib *Inbox) Serve(ctx context.Context, ln net.Listener, opts HandlerOptions) error {
	if opts.Addr == "" {
		opts.Addr = ln.Addr().String()
	}
	srv := &http.Server{Handler: ib.Handler(opts), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: idleTimeout}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve the permission inbox on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return srv.Close()
	}
}

func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// pageData is what the page renders.
type pageData struct {
	Requests     []Request
	Sessions     []Session
	Rules        Rules
	RulesError   string
	TimeoutLabel string
	Trust        *trustBanner // nil: trusted, or not reported
}

func (ib *Inbox) data(r *http.Request) pageData {
	v := viewerOf(r)
	d := pageData{Requests: v.requests(ib.Pending()), Sessions: v.sessions(ib.Sessions(r.Context())), TimeoutLabel: ib.opts.Timeout.String()}
	if v.operator {
		d.Trust = ib.banner()
	}
	rules, err := ib.AgentRules(r.URL.Query().Get("agent"))
	d.Rules = rules
	if err != nil {
		d.RulesError = err.Error()
	}
	return d
}

func (ib *Inbox) page(w http.ResponseWriter, r *http.Request) {
	ib.render(w, "page.html", ib.data(r))
}

func (ib *Inbox) fragment(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ib.render(w, name+".html", ib.data(r))
	}
}

func (ib *Inbox) render(w http.ResponseWriter, name string, d pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var p page
	views[name](&p, d)
	if _, err := io.WriteString(w, p.String()); err != nil {
		ib.log.Debug("send the permission inbox", "view", name, "err", err)
	}
}

// apiError writes {"error": msg} with status.
func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (ib *Inbox) apiRequests(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"requests": viewerOf(r).requests(ib.Pending())})
}

func (ib *Inbox) apiSessions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"sessions": viewerOf(r).sessions(ib.Sessions(r.Context()))})
}

func (ib *Inbox) apiRules(w http.ResponseWriter, r *http.Request) {
	rules, err := ib.AgentRules(r.URL.Query().Get("agent"))
	if err != nil {
		apiError(w, http.StatusNotFound, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, rules)
}

// eventKeepAlive is how often an idle event stream gets a comment, so
// proxies do not close it.
const eventKeepAlive = 25 * time.Second

// apiEvents streams the pending requests and sessions as server-sent
// events: an event "state" with {"requests": [...], "sessions": [...]} at
// once and after every change.
func (ib *Inbox) apiEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	changes, cancel, ok := ib.subscribe()
	if !ok {
		apiError(w, http.StatusServiceUnavailable, fmt.Sprintf("%d event streams are open already, the most the inbox serves; close other inbox pages or scripts that follow /api/events", maxEventStreams))
		return
	}
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	keepAlive := time.NewTicker(eventKeepAlive)
	defer keepAlive.Stop()
	send := func() error {
		v := viewerOf(r)
		b, err := json.Marshal(map[string]any{"requests": v.requests(ib.Pending()), "sessions": v.sessions(ib.Sessions(r.Context()))})
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: state\ndata: %s\n\n", b); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := send(); err != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-changes:
			if err := send(); err != nil {
				return
			}
		case <-keepAlive.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

// replyBody is the body of POST /api/requests/{id}/reply.
type replyBody struct {
	Reply   permission.ReplyKind `json:"reply"`
	Message string               `json:"message,omitempty"`
}

func (ib *Inbox) apiReply(w http.ResponseWriter, r *http.Request) {
	var body replyBody
	if !decodeJSON(w, r, &body) {
		return
	}
	id := r.PathValue("id")
	if caller, ok := ib.questionCaller(r.Context(), id); ok && !viewerOf(r).sees(caller) {
		// Another caller's question: as if absent, so its id tells
		// nothing.
		apiError(w, http.StatusNotFound, fmt.Sprintf("reply to %s: %v", id, ErrUnknown))
		return
	}
	err := ib.Reply(id, permission.Reply{Kind: body.Reply, Message: body.Message})
	switch {
	case errors.Is(err, ErrUnknown):
		apiError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, ErrAnswered):
		apiError(w, http.StatusConflict, err.Error())
	case err != nil:
		apiError(w, http.StatusBadRequest, err.Error())
	default:
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	}
}

// revokeBody is the body of POST /api/sessions/{id}/revoke.
type revokeBody struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern"`
}

func (ib *Inbox) apiRevoke(w http.ResponseWriter, r *http.Request) {
	var body revokeBody
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.Permission == "" || body.Pattern == "" {
		apiError(w, http.StatusBadRequest, `send {"permission": ..., "pattern": ...} of the approval to revoke`)
		return
	}
	if v := viewerOf(r); !v.operator {
		if caller, ok := ib.sessionCaller(r.PathValue("id")); !ok || !v.sees(caller) {
			apiError(w, http.StatusNotFound, fmt.Sprintf("no session %s of yours in the inbox's history", r.PathValue("id")))
			return
		}
	}
	found, err := ib.Revoke(r.Context(), r.PathValue("id"), body.Permission, body.Pattern)
	switch {
	case err != nil:
		apiError(w, http.StatusInternalServerError, err.Error())
	case !found:
		apiError(w, http.StatusNotFound, fmt.Sprintf("session %s has no approval of %s %q", r.PathValue("id"), body.Permission, body.Pattern))
	default:
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	}
}

// decodeJSON reads a JSON body of at most maxBody bytes, arriving within
// bodyTimeout, into v, strictly.
// A body that is not declared application/json is refused: a cross-site
// HTML form cannot send that type, and a script can only after a CORS
// preflight that this server never grants.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		apiError(w, http.StatusUnsupportedMediaType, "send the body as JSON with Content-Type: application/json")
		return false
	}
	// A body that trickles in would hold the connection for ever.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			apiError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", maxBody))
			return false
		}
		apiError(w, http.StatusBadRequest, "body is not the expected JSON: "+err.Error())
		return false
	}
	if dec.More() {
		apiError(w, http.StatusBadRequest, "body has more than one JSON value")
		return false
	}
	return true
}

// staticFS is the page's script and style sheet, served under /static/.
func staticFS() fs.FS {
	sub, err := fs.Sub(webFS, "web")
	if err != nil {
		panic(err) // web is embedded; it is always there
	}
	return noDirs{sub}
}

// noDirs refuses to open directories, so /static/ lists nothing.
type noDirs struct{ fs.FS }

func (n noDirs) Open(name string) (fs.File, error) {
	f, err := n.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || st.IsDir() || !strings.HasPrefix(name, "static/") {
		f.Close()
		return nil, fs.ErrNotExist
	}
	return f, nil
}
