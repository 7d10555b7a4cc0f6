package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
)

// TokenEnv is the environment variable holding the bearer token of
// `toolhost mcp --http` when --token is not given.
const TokenEnv = "TOOLHOST_MCP_TOKEN"

// HTTPOptions configure Handler.
type HTTPOptions struct {
	// Addr is the host:port the server is bound to. Requests whose Host
	// header names another host are refused (DNS rebinding protection):
	// only the bound name or address, or a loopback name when bound to
	// loopback, is accepted. Empty: loopback names only.
	Addr string
	// Token, when set, must be sent as "Authorization: Bearer <token>" on
	// every request; others get 401.
	Token string
	// Callers, when set, also accepts the bearer tokens it authenticates
	// (named tokens, OIDC/JWT); each request's caller owns the sessions
	// it opens (fleet.go).
	Callers httpguard.Authenticator
	// Stateless serves each request on its own temporary session: no
	// Mcp-Session-Id, no server-initiated requests (so no elicitation on
	// the legacy protocol), and a new toolhost session per call unless the
	// client names one in _meta (MetaSessionKey).
	Stateless bool
	// Metrics, when set, are served at /metrics.
	Metrics *Metrics
	// Ready reports whether the server can serve calls now (its session
	// store is reachable); /readyz answers 503 with its error. Nil: ready
	// while serving.
	Ready func(ctx context.Context) error
	// Inbox, when set, is the permission inbox's handler (guarded by
	// itself), served beside the MCP endpoint: its page at /inbox, its
	// API, fragments and static files at /api/, /fragments/ and /static/,
	// where the page asks for them. One URL and one authentication for a
	// fleet behind a load balancer.
	Inbox http.Handler
	// DrainTimeout bounds how long ListenAndServe waits, after its
	// context ends, for requests in flight. Default ShutdownGrace.
	DrainTimeout time.Duration
	// DrainDelay is how long ListenAndServe goes on serving, /readyz
	// already 503, after its context ends and before it drains: the time
	// a load balancer (Kubernetes endpoints, kube-proxy) takes to stop
	// sending to a replica that turned unready. Default 0.
	DrainDelay time.Duration
}

// Handler returns the Streamable HTTP handler of the server, guarded by the
// Host, Origin and bearer token checks of opts.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		Stateless: opts.Stateless,
		Logger:    s.log,
	})
	if opts.Stateless && s.opts.Relay != nil {
		// Replicas of a fleet: MCP sessions in the shared store (fleet.go).
		f := s.newFleet(s.opts.Relay, h)
		if s.relay != nil {
			if err := f.listen(s.relay.ctx); err != nil {
				s.log.Warn("answers to questions asked on other replicas will not arrive", "err", err)
			}
		}
		return guard(opts, f)
	}
	return guard(opts, bindSDKSessions(h))
}

// ShutdownGrace is how long ListenAndServe lets tool calls in flight
// finish once its context ends, before it closes their connections. It
// keeps a signalled `toolhost mcp --http` within the 2 s a supervisor
// expects.
const ShutdownGrace = 1500 * time.Millisecond

// spareQuiet is how long a connection may stay open during a shutdown
// without sending a request before it is closed (spareconns.go).
const spareQuiet = 100 * time.Millisecond

// ListenAndServe serves the HTTP handler on ln until ctx ends, then shuts
// down: it stops accepting, ends the clients' open event streams at once
// (they would otherwise hold the shutdown until its deadline), gives tool
// calls in flight up to ShutdownGrace to finish, and closes what is left.
//
// opts.DrainTimeout replaces ShutdownGrace where a deployment gives calls
// longer (a Kubernetes pod's terminationGracePeriodSeconds). While it
// drains, /readyz answers 503 so a load balancer stops sending; with
// opts.DrainDelay it first goes on serving, already unready, for that
// long, so requests the load balancer still sends are not refused.
//
// Beside the MCP endpoint it serves, without the token and Host checks
// (they expose no tool, and probes send neither): /healthz (200 while the
// process serves), /readyz (200 when opts.Ready succeeds and the server is
// not draining) and, with opts.Metrics, /metrics.
func (s *Server) ListenAndServe(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	if opts.Addr == "" {
		opts.Addr = ln.Addr().String()
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = ShutdownGrace
	}
	var draining atomic.Bool
	streams, endStreams := context.WithCancel(context.WithoutCancel(ctx))
	defer endStreams()
	var spare spareConns
	srv := &http.Server{Handler: s.opsHandler(opts, &draining, endOnShutdown(streams, s.Handler(opts))), ReadHeaderTimeout: 10 * time.Second, ConnState: spare.track}
	srv.RegisterOnShutdown(endStreams)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve mcp on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
		draining.Store(true)
		if opts.DrainDelay > 0 {
			// Not ready, still serving: new requests keep coming until
			// the load balancer has seen /readyz turn.
			s.log.Info("not ready; serving until the drain delay ends", "delay", opts.DrainDelay)
			select {
			case <-time.After(opts.DrainDelay):
			case err := <-errc:
				return fmt.Errorf("serve mcp on %s: %w", ln.Addr(), err)
			}
		}
		s.log.Info("draining", "timeout", opts.DrainTimeout)
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.DrainTimeout)
		defer cancel()
		// Calls waiting for a person end now, their questions left
		// answerable through other replicas (drain.go); the rest get
		// the drain timeout.
		s.Drain(sctx)
		shut := make(chan struct{})
		go spare.closeUnusedUntil(shut, spareQuiet)
		err := srv.Shutdown(sctx)
		close(shut)
		if errors.Is(err, context.DeadlineExceeded) {
			s.log.Warn("requests still in flight after the drain timeout; closing them", "timeout", opts.DrainTimeout)
			err = srv.Close()
		}
		return err
	}
}

// opsHandler routes the probes and metrics, and everything else to the
// guarded MCP handler.
func (s *Server) opsHandler(opts HTTPOptions, draining *atomic.Bool, mcp http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if draining.Load() {
			http.Error(w, "draining: shutting down", http.StatusServiceUnavailable)
			return
		}
		if opts.Ready != nil {
			ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
			defer cancel()
			if err := opts.Ready(ctx); err != nil {
				http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ok")
	})
	if opts.Metrics != nil {
		mux.Handle("GET /metrics", opts.Metrics.Handler())
	}
	if opts.Inbox != nil {
		mux.Handle("GET /inbox", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r2 := r.Clone(r.Context())
			r2.URL.Path, r2.URL.RawPath = "/", ""
			opts.Inbox.ServeHTTP(inboxPage{w}, r2)
		}))
		for _, p := range []string{"/api/", "/fragments/", "/static/"} {
			mux.Handle(p, opts.Inbox)
		}
	}
	mux.Handle("/", mcp)
	return mux
}

// inboxPage is the response of the inbox's page served at /inbox: the
// inbox redirects to itself at "/" (signing in with ?token=), which here is
// /inbox.
type inboxPage struct{ http.ResponseWriter }

func (w inboxPage) WriteHeader(code int) {
	if l := w.Header().Get("Location"); strings.HasPrefix(l, "/") && !strings.HasPrefix(l, "//") {
		w.Header().Set("Location", "/inbox"+l[1:])
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w inboxPage) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// endOnShutdown ends a GET request — a client's standing event stream,
// which carries no call of its own — when streams is cancelled. POSTs
// (calls, and the streams answering them) keep their own context, so a
// call in flight is not cut short before the grace period.
func endOnShutdown(streams context.Context, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(streams, cancel)
		defer stop()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// CheckBind refuses to serve beyond loopback without a token: every tool,
// bash included, would be open to the network.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcp address %q: %w; use host:port such as 127.0.0.1:8080", addr, err)
	}
	if isLoopback(host) || token != "" {
		return nil
	}
	return fmt.Errorf("mcp address %s is not loopback: every tool, bash included, would be open to the network; set a bearer token with --token or %s, or bind 127.0.0.1", addr, TokenEnv)
}

// guard applies the checks of opts before h (internal/serve/httpguard, shared
// with the permission inbox).
func guard(opts HTTPOptions, h http.Handler) http.Handler {
	return httpguard.Wrap(httpguard.Options{
		Addr:    opts.Addr,
		Token:   opts.Token,
		Callers: opts.Callers,
		Remedy:  "the token given to toolhost mcp --token or " + TokenEnv,
	}, h)
}

func isLoopback(host string) bool { return httpguard.IsLoopback(host) }
