package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/serve/httpguard"
	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/mcp/client"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session"
)

// MCPOptions are the flags of `toolhost mcp`.
type MCPOptions struct {
	HTTP      string // address to serve Streamable HTTP on; "" serves stdio
	Stateless bool
	Token     string
	Agent     string
	Model     string
	// DrainTimeout bounds the wait for calls in flight after SIGTERM.
	DrainTimeout time.Duration
	// DrainDelay is how long the server goes on serving, unready, after
	// SIGTERM and before it drains.
	DrainDelay time.Duration
	// MaxParked bounds the calls parked waiting for a permission answer.
	MaxParked int
	// OTLPEndpoint is where traces go (OTLP/HTTP base URL); "" reads
	// OTEL_EXPORTER_OTLP_ENDPOINT, and without either tracing is off.
	OTLPEndpoint string
	// AskFallback overrides "server.ask_fallback": allow, deny or inbox.
	AskFallback string
	// Inbox configures the permission inbox of --ask-fallback inbox.
	Inbox InboxOptions
	// ToolPrefix overrides "server.tool_prefix"; ToolPrefixSet says the
	// flag was given (an empty prefix is a choice).
	ToolPrefix    string
	ToolPrefixSet bool
	// Callers are the named tokens and identity provider of --http.
	Callers CallerOptions
}

// NewCmdMCP serves toolhost's tools over MCP, and groups the MCP client
// commands. runF replaces the behaviour in tests of flag parsing; nil means
// runMCP.
func NewCmdMCP(g *Globals, runF func(context.Context, *Globals, *MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the tools to MCP clients (stdio or Streamable HTTP)",
		Long: `Serve every tool the agent gets to an MCP client, on stdin/stdout by default
or on Streamable HTTP with --http. Calls take the same validation,
permission, truncation and hook path as toolhost call.

When a rule says "ask", a client that supports elicitation shows the person
the request (with the diff for edits) and they answer once, always or reject.
With a client that cannot (OpenCode, Qwen Code, the MCP Inspector),
--ask-fallback decides: deny (the default) refuses the call with a message
saying which rule to add; allow lets it run, leaving the approval to the
client's own permission prompt; inbox parks the question in the permission
inbox, a web page (--inbox, its URL printed on stderr) where a person
answers once, always or reject while the call waits (up to --inbox-timeout;
docs/inbox.md), as do questions a client that can ask leaves unanswered. Rules that say "deny" deny either way. The
MCP session is the toolhost session: approvals, read stamps and todos last
as long as it does.

Descriptions, hints and errors name tools as the client does (OpenCode:
toolhost_read; Claude Code: mcp__toolhost__read, for a server registered as
"toolhost"); set --tool-prefix when it is registered under another name.
Ready-made client configs: docs/mcp.md.

--http binds loopback addresses only, unless a bearer token is set (--token
or ` + server.TokenEnv + `), which is then required on every request. Requests
whose Host is not the bound address, or whose Origin is not localhost, are
refused (DNS rebinding protection). The HTTP server also answers /healthz,
/readyz (the session store is reachable and the server is not draining) and
/metrics (Prometheus), and drains on SIGTERM: /readyz turns 503, the
server goes on serving for --drain-delay while load balancers catch up,
then calls waiting for a permission answer end at once with their question
left answerable through other replicas, other calls in flight get
--drain-timeout to finish (docs/deploy.md). At most --max-parked calls wait
for a permission answer at once; a call that asks past it is refused with a
result saying so.

Several replicas behind a load balancer share sessions through a PostgreSQL
store ("store": {"url": ...} or TOOLHOST_STORE_URL); with --stateless any
replica serves any request: MCP sessions are kept in the store, each bound
to the caller that opened it (--token, --tokens-file, --oidc-issuer), and a
question parked on one replica is answered through another, or through any
replica's inbox (--inbox-on-mcp serves it at /inbox).`,
		Example: `  toolhost mcp
  toolhost mcp --http 127.0.0.1:8765
  TOOLHOST_MCP_TOKEN=s3cret toolhost mcp --http 127.0.0.1:8765 --stateless
  toolhost mcp --agent plan
  toolhost mcp --ask-fallback allow
  toolhost mcp --ask-fallback inbox --inbox 127.0.0.1:8766
  toolhost mcp --tool-prefix th_
  toolhost mcp list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Token == "" {
				opts.Token = os.Getenv(server.TokenEnv)
			}
			switch opts.AskFallback {
			case "", config.AskFallbackDeny, config.AskFallbackAllow, config.AskFallbackInbox:
			default:
				return usageError{fmt.Errorf("--ask-fallback %q: use allow, deny or inbox", opts.AskFallback)}
			}
			if err := opts.Inbox.check(); err != nil {
				return usageError{err}
			}
			opts.ToolPrefixSet = cmd.Flags().Changed("tool-prefix")
			if opts.Stateless && opts.HTTP == "" {
				return usageError{fmt.Errorf("--stateless applies to --http; add --http 127.0.0.1:PORT")}
			}
			opts.Callers.fromEnv()
			if opts.HTTP != "" {
				token := opts.Token
				if opts.Callers.set() {
					token = "callers" // named tokens or an identity provider guard it
				}
				if err := server.CheckBind(opts.HTTP, token); err != nil {
					return usageError{err}
				}
			}
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runMCP(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "serve Streamable HTTP on `host:port` instead of stdio (loopback unless a token is set)")
	cmd.Flags().BoolVar(&opts.Stateless, "stateless", false, "with --http: keep no MCP session in this process, so any replica on the same store serves any request")
	cmd.Flags().StringVar(&opts.Token, "token", "", "bearer `token` every HTTP request must send (default $"+server.TokenEnv+")")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "agent `name` whose tools and permissions are served (default build)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "model `id` the tools are chosen for")
	cmd.Flags().DurationVar(&opts.DrainTimeout, "drain-timeout", 0, "with --http: on SIGTERM, how long calls in flight may take to finish (default 1.5s)")
	cmd.Flags().DurationVar(&opts.DrainDelay, "drain-delay", 0, "with --http: on SIGTERM, how long to go on serving with /readyz at 503 before draining, while load balancers catch up")
	cmd.Flags().StringVar(&opts.OTLPEndpoint, "otlp-endpoint", "", "export a trace span of every call over OTLP/HTTP to this `URL` (default $"+envOTLPEndpoint+"; off without either)")
	cmd.Flags().IntVar(&opts.MaxParked, "max-parked", 0, fmt.Sprintf("calls that may wait for a permission answer at once; more are refused (`n`, default %d; -1 no limit)", server.DefaultMaxParked))
	cmd.Flags().StringVar(&opts.AskFallback, "ask-fallback", "", "what \"ask\" becomes for clients that cannot show questions: allow, deny or inbox (`mode`; default \"server.ask_fallback\", else deny)")
	addInboxFlags(cmd.Flags(), &opts.Inbox)
	addCallerFlags(cmd.Flags(), &opts.Callers)
	cmd.Flags().StringVar(&opts.ToolPrefix, "tool-prefix", "", "`prefix` the client puts before tool names (default: guessed from the client, or \"server.tool_prefix\")")
	cmd.AddCommand(NewCmdMCPList(g, nil))
	return cmd
}

// mcpGCPercent is the garbage collector's target for `toolhost mcp`
// unless GOGC says otherwise. A server's live heap is a few MB while each
// call allocates its payload several times over (the tool's output, the
// JSON-RPC encoding); at the default of 100 it collected every few dozen
// calls and the collector and scavenger took a third of its CPU. 400 lets
// the heap grow to five times the live data between collections: a few
// tens of MB more, for about half the CPU per call (BENCHMARKS.md, MCP).
const mcpGCPercent = 400

// serverGC sets mcpGCPercent for a long-running server process, leaving an
// explicit GOGC alone.
func serverGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mcpGCPercent)
	}
}

// runMCP serves until the client goes or a signal arrives. The host
// watches the tool folders, so tools added or removed while it serves are
// offered or withdrawn and clients told. SIGINT and SIGTERM end it with exit
// status 0 within about a second, also during start-up while modules
// compile.
func runMCP(ctx context.Context, g *Globals, opts *MCPOptions) error {
	serverGC()
	log := g.logger()
	var metrics *server.Metrics
	withMetrics := func(o *host.Options) {}
	if opts.HTTP != "" {
		metrics = server.NewMetrics()
		withMetrics = func(o *host.Options) {
			o.WrapStore = func(s session.Store) session.Store { return watchStore(metrics, s) }
		}
	}
	h, err := hostUntilSignal(ctx, func(ctx context.Context) (*host.Host, error) {
		return g.host(ctx, server.Asker{}, false, watching, withMetrics)
	})
	if errors.Is(err, errStopped) {
		return nil
	}
	if err != nil {
		return err
	}
	defer closeHost(ctx, log, h)
	callers, err := opts.Callers.authenticator(ctx)
	if err != nil {
		return usageError{err}
	}
	stopTracing, err := traceCalls(ctx, h.Registry, opts.OTLPEndpoint, log)
	if err != nil {
		return err
	}
	defer stopTracing()
	var inboxHandler func(addr, token string, callers httpguard.Authenticator) http.Handler
	sopts := serverOptions(h.Registry.Config().Server, opts, log)
	if sopts.AskFallback == config.AskFallbackInbox {
		agentName := opts.Agent
		if a, err := h.Registry.Agent(opts.Agent); err == nil {
			agentName = a.Name
		}
		var ib *inbox.Inbox
		if opts.Callers.InboxOnMCP && opts.HTTP != "" {
			ib, inboxHandler = mountInbox(g, opts.Inbox, agentName, opts.Callers.InboxOperators)
			defer ib.Close()
		} else {
			var stop func()
			ib, stop, err = startInbox(ctx, g, opts.Inbox, agentName)
			if err != nil {
				return err
			}
			defer stop()
		}
		if opts.Stateless {
			// Replicas: one inbox for the fleet (internal/serve/inbox/fleet.go).
			if err := ib.Share(ctx, h.Store); err != nil {
				log.Warn("the permission inbox lists this replica's questions only", "err", err)
			} else {
				// On SIGTERM its questions end at once, kept
				// answerable on the other replicas' pages.
				context.AfterFunc(ctx, ib.Close)
			}
		}
		ib.Attach(h.Registry)
		ib.SetTrust(h.TrustReviewer(), h.TrustStatus().Trusted)
		if !h.Config.Server.NotifyInbox() {
			ib.SetNotifier(nil)
		}
		sopts.Inbox = ib
	}
	for _, le := range h.LoadErrors {
		log.Warn("tool source skipped", "source", le.Source, "file", le.File, "reason", le.Reason)
	}
	if metrics != nil {
		metrics.WatchPools(func() []server.PoolSize {
			var out []server.PoolSize
			for _, p := range h.WasmPools() {
				out = append(out, server.PoolSize{Module: p.Module, Idle: p.Idle, InUse: p.InUse})
			}
			return out
		})
	}
	sopts.Relay, sopts.Metrics = h.Store, metrics
	sopts.ConfigDirs, sopts.Project, sopts.OutputDir = h.Dirs, h.Worktree, h.Registry.OutputDir()
	if st := h.TrustStatus(); !st.Trusted {
		// g.host put the notice on stderr, which clients keep as the
		// server's log; the instructions carry it to the model, which
		// can tell the person.
		sopts.Notice = "Note for the user: " + st.Notice() + "."
	}
	srv, err := server.New(ctx, h.Registry, sopts)
	if err != nil {
		return usageError{err}
	}
	defer srv.Close()
	if opts.HTTP == "" {
		err := srv.ServeStdio(ctx)
		if ctx.Err() != nil {
			return nil // stopped by a signal
		}
		return err
	}
	ln, err := net.Listen("tcp", opts.HTTP)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", opts.HTTP, err)
	}
	// Printed on stderr so scripts that pass port 0 learn the real one.
	fmt.Fprintf(g.Streams.ErrOut, "toolhost: serving MCP on http://%s/\n", ln.Addr())
	ready := func(context.Context) error { return nil }
	if p, ok := h.Store.(session.Pinger); ok {
		ready = p.Ping
	}
	hopts := server.HTTPOptions{
		Addr: ln.Addr().String(), Token: opts.Token, Callers: callers, Stateless: opts.Stateless,
		Metrics: metrics, Ready: ready, DrainTimeout: opts.DrainTimeout, DrainDelay: opts.DrainDelay,
	}
	if inboxHandler != nil {
		hopts.Inbox = inboxHandler(hopts.Addr, opts.Token, callers)
	}
	return srv.ListenAndServe(ctx, ln, hopts)
}

// serverOptions are the MCP server's options: the flags over the config's
// "server" section.
func serverOptions(cfg config.Server, opts *MCPOptions, log *slog.Logger) server.Options {
	o := server.Options{
		Agent:         opts.Agent,
		Model:         opts.Model,
		Version:       versionString(),
		Logger:        log,
		AskFallback:   cfg.AskFallback,
		SkipReadCheck: !cfg.ReadRequired(),
		ToolPrefix:    cfg.ToolPrefix,
		MaxParked:     opts.MaxParked,
	}
	if opts.AskFallback != "" {
		o.AskFallback = opts.AskFallback
	}
	if opts.ToolPrefixSet {
		p := opts.ToolPrefix
		o.ToolPrefix = &p
	}
	return o
}

// MCPListOptions are the flags of `toolhost mcp list`.
type MCPListOptions struct {
	JSON bool
}

// NewCmdMCPList shows the configured MCP servers, started to see their state.
func NewCmdMCPList(g *Globals, runF func(context.Context, *Globals, *MCPListOptions) error) *cobra.Command {
	opts := &MCPListOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the configured MCP servers, their state and tool counts",
		Long: `Start every MCP server configured under "mcp" (in parallel, each within its
timeout), list its tools, and stop it again. The state is connected, failed
(with the reason) or disabled.`,
		Example: `  toolhost mcp list
  toolhost mcp list --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runMCPList(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of {name, type, state, tools, error}")
	return cmd
}

func runMCPList(ctx context.Context, g *Globals, opts *MCPListOptions) error {
	dir := g.Dir
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("working directory %s: %w", g.Dir, err)
	}
	// The project's MCP servers start only when it is trusted.
	loaded, _, err := g.loadConfig(dir, os.Getenv)
	if err != nil {
		return err
	}
	m := client.New(loaded.Config.MCP, client.Options{Directory: dir, Logger: g.logger(), Version: versionString()})
	m.Start(ctx)
	defer m.Close()
	status := m.Status()
	if opts.JSON {
		enc := json.NewEncoder(g.Streams.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(status)
	}
	if len(status) == 0 {
		fmt.Fprintln(g.Streams.Out, `No MCP servers configured. Add them under "mcp" in toolhost.json.`)
		return nil
	}
	tw := tabwriter.NewWriter(g.Streams.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tSTATE\tTOOLS\tERROR")
	for _, s := range status {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", s.Name, s.Type, s.State, s.Tools, s.Error)
	}
	return tw.Flush()
}
