package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
	"github.com/toolhost/toolhost/mcp/internal/stdio"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// MetaSessionKey is the _meta key a client may set on tools/call to name the
// toolhost session the call belongs to. Clients of the sessionless
// 2026-07-28 protocol, and of a --stateless server, use it to keep approvals,
// read stamps and todos across calls; without it each MCP connection (a
// stdio process, a Streamable HTTP session) is one toolhost session.
const MetaSessionKey = "toolhost/session"

// Meta keys of a tools/call result: the tool's title and its metadata.
const (
	MetaTitleKey    = "toolhost/title"
	MetaMetadataKey = "toolhost/metadata"
)

// Options configure New.
type Options struct {
	// Agent whose tools and permissions are served. Default: the config's
	// default agent, else "build".
	Agent string
	// Model the calls are made for; it picks model-specific tools (edit and
	// write, or apply_patch). Default: the config's model.
	Model string
	// Version is reported to clients as the server version. Default "dev".
	Version string
	// Logger receives server logs. Default: discard.
	Logger *slog.Logger
	// Relay is a session store shared with other replicas of this server
	// (pgstore behind a load balancer). When it implements
	// session.Notifier, an answer to a call parked on another replica is
	// passed to that replica through it (relay.go). Nil: answers reach only
	// calls parked on this replica.
	Relay session.Store
	// Metrics count calls and their outcomes. Nil: not counted.
	Metrics *Metrics
	// MaxParked bounds the calls parked on this server waiting for a
	// permission answer (limits.go); a call that asks past it is ended
	// with a result saying why. 0: DefaultMaxParked; negative: no limit.
	MaxParked int

	// AskFallback is what a permission rule's "ask" becomes for a client
	// that cannot answer elicitation (OpenCode, Qwen Code, the MCP
	// Inspector): config.AskFallbackDeny (the default, "") refuses the
	// call and names the rule that would allow it; config.AskFallbackAllow
	// lets it run, so the client's own permission prompt, which admitted
	// the call, has the last word; config.AskFallbackInbox parks the
	// question with Inbox, where a person answers it while the call
	// waits. Rules that deny still deny, and a client that can elicit is
	// always asked. Config "server.ask_fallback".
	AskFallback string
	// Inbox is where questions are parked with AskFallbackInbox: the
	// permission inbox (internal/serve/inbox), or anything else that can show
	// a question to a person. Required with AskFallbackInbox.
	Inbox permission.Asker

	// SkipReadCheck lets edit and write change an existing file the MCP
	// session has not read through toolhost's read tool (config
	// "server.require_read": false), for clients whose models read with
	// their own read tool. Default false: the check is on, and its
	// refusal names toolhost's read tool as the client calls it.
	SkipReadCheck bool

	// ToolPrefix is what the client puts before a tool's id to name it;
	// descriptions, hints and errors name tools that way. Nil: guessed
	// per client from its initialize (OpenCode "toolhost_", Claude Code
	// "mcp__toolhost__", for a server registered under DefaultServerKey),
	// else none. Config "server.tool_prefix".
	ToolPrefix *string

	// ConfigDirs are the config directories whose skills (skill/,
	// skills/) and commands (command/*.md, commands/*.md) are served as
	// prompts, lowest precedence first. Nil: no prompts.
	ConfigDirs []string
	// Project is the project root: its resources/ folder is served as
	// resources, and commands embed its files with @path. "": neither.
	Project string
	// OutputDir is where the registry saves the full outputs of truncated
	// calls; those of calls this server answered are served as resources
	// (toolhost://tool-output/<file>) and linked from their results.
	// "": not served.
	OutputDir string
	// PollInterval is how often subscribed resources are checked for
	// changes. Default 1 s.
	PollInterval time.Duration
	// Notice is added to the server's instructions, which clients show
	// the model at the start of a session: the front end puts there that
	// the project is not trusted and the command that trusts it.
	Notice string
}

// Server serves a registry's tools over MCP. Build it with New, then
// ServeStdio, ServeStream over any pair of streams, or mount Handler on an
// HTTP server. It is safe for concurrent use by many client sessions.
type Server struct {
	reg  *runtime.Registry
	opts Options
	log  *slog.Logger
	sdk  *sdk.Server

	sessions     sync.Map // *sdk.ServerSession → toolhost session id
	splicers     sync.Map // *sdk.ServerSession → *stdio.Splicer (stdio)
	parked       parkedCalls
	relay        *relay        // nil without a shared store (relay.go)
	claims       func() *fleet // owners of toolhost sessions outside a fleet (fleet.go)
	inboxWaiting atomic.Int64  // calls waiting in the permission inbox (limits.go)
	drain        drainState    // drain.go
	list         toolList      // the offered tools, kept in step with the registry (refresh.go)
	proj         *project      // prompts and resources (project.go)

	unknown  sync.Map     // client names whose tool naming is not known, logged once (clients.go)
	unknownN atomic.Int32 // how many
}

// New lists the registry's tools for the agent and model and returns a
// server offering them. The list follows the registry: tools added or
// removed later are offered or withdrawn, and clients are sent
// notifications/tools/list_changed. Close the server to stop following.
func New(ctx context.Context, reg *runtime.Registry, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Model == "" {
		opts.Model = reg.Config().Model
	}
	switch opts.AskFallback {
	case "", config.AskFallbackDeny, config.AskFallbackAllow:
	case config.AskFallbackInbox:
		if opts.Inbox == nil {
			return nil, fmt.Errorf("serve mcp: ask fallback %q needs Options.Inbox, the inbox to park questions in", opts.AskFallback)
		}
	default:
		return nil, fmt.Errorf("serve mcp: ask fallback %q: use %q, %q or %q", opts.AskFallback, config.AskFallbackDeny, config.AskFallbackAllow, config.AskFallbackInbox)
	}
	agent, err := reg.Agent(opts.Agent)
	if err != nil {
		return nil, fmt.Errorf("serve mcp: %w", err)
	}
	opts.Agent = agent.Name
	s := &Server{reg: reg, opts: opts, log: opts.Logger}
	s.claims = sync.OnceValue(func() *fleet {
		store := opts.Relay
		if store == nil {
			store = session.NewMemory()
		}
		return &fleet{s: s, store: store, owners: map[string]ownerSeen{}}
	})
	s.parked.init()
	if opts.Metrics != nil {
		opts.Metrics.watchParked(s.parked.count)
		reg.Permissions().Observe(opts.Metrics.permission)
	}
	// listChanged: the tool list follows the registry (refresh.go).
	// Logging: a tool's log lines reach the client that called it
	// (client.go); the server's own logs stay on stderr.
	caps := &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}, Logging: &sdk.LoggingCapabilities{}}
	projectCapabilities(caps)
	var proj *project
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "toolhost", Title: "toolhost", Version: opts.Version}, &sdk.ServerOptions{
		Logger:       opts.Logger,
		Capabilities: caps,
		CompletionHandler: func(ctx context.Context, r *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
			return proj.complete(ctx, r)
		},
		SubscribeHandler:   func(ctx context.Context, r *sdk.SubscribeRequest) error { return proj.subscribe(ctx, r) },
		UnsubscribeHandler: func(ctx context.Context, r *sdk.UnsubscribeRequest) error { return proj.unsubscribe(ctx, r) },
		Instructions:       strings.TrimSpace("Tools of the toolhost " + opts.Agent + " agent. Calls that need a person's approval are asked through elicitation when the client supports it; otherwise the configured permission rules decide.\n\n" + opts.Notice),
	})
	proj = newProject(s.sdk, opts, agent.Rules)
	s.proj = proj
	s.sdk.AddReceivingMiddleware(s.nameToolsInLists, proj.syncing)
	// Follow first, so a change made while the first list is built is
	// not missed.
	s.follow()
	if err := s.Refresh(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("serve mcp: %w", err)
	}
	if err := s.startRelay(ctx, opts.Relay); err != nil {
		s.Close()
		return nil, fmt.Errorf("serve mcp: listen for answers relayed by other replicas: %w", err)
	}
	return s, nil
}

// ServeStdio serves one client on the process's stdin and stdout until it
// disconnects or ctx ends.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.serveStream(ctx, stdio.StdinInput(os.Stdin), os.Stdout)
}

// ServeStream serves one client reading newline-delimited JSON-RPC from r
// and writing it to w, as ServeStdio does over the process's stdin and
// stdout (the MCP stdio transport over any pair of streams: pipes, a
// socket), until the client disconnects or ctx ends. It closes r, not w.
func (s *Server) ServeStream(ctx context.Context, r io.ReadCloser, w io.Writer) error {
	return s.serveStream(ctx, r, w)
}

// serveStream serves one client reading newline-delimited JSON-RPC from r
// and writing it to w, which it does not close, over the stdio transport
// of package mcp/internal/stdio. Tool results are spliced into the
// responses as they are written (toResult, stdio.Splicer).
func (s *Server) serveStream(ctx context.Context, r io.ReadCloser, w io.Writer) error {
	sp := stdio.NewSplicer(w)
	ss, err := s.sdk.Connect(ctx, &stdio.Transport{In: r, Out: sp}, nil)
	if err != nil {
		return fmt.Errorf("serve mcp: %w", err)
	}
	s.splicers.Store(ss, sp)
	defer s.splicers.Delete(ss)
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-done
		return ctx.Err()
	case err := <-done:
		return err
	}
}

// splicerOf is the splicer under a session's connection, nil for a
// session that does not splice (Streamable HTTP, in-memory).
func (s *Server) splicerOf(ss *sdk.ServerSession) *stdio.Splicer {
	if v, ok := s.splicers.Load(ss); ok {
		return v.(*stdio.Splicer)
	}
	return nil
}

// annotations are the MCP hints of what a tool declares it does
// (runtime.Traits.Hints), whatever its source. A tool that declares
// nothing — wasm modules, plugins, MCP servers' tools — gets none: an
// absent hint tells a client to assume the worst, which is the honest
// answer for code nobody here reviewed.
func annotations(t runtime.ToolInfo) *sdk.ToolAnnotations {
	h := t.Traits.Hints
	if h == nil {
		return nil
	}
	destructive, openWorld := h.Destructive, h.OpenWorld
	return &sdk.ToolAnnotations{
		ReadOnlyHint:    h.ReadOnly,
		IdempotentHint:  h.Idempotent,
		DestructiveHint: &destructive,
		OpenWorldHint:   &openWorld,
	}
}

func (s *Server) handler(id string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if req.Params.RequestState != "" {
			return s.resume(ctx, req), nil
		}
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		call := runtime.Call{
			Tool:      id,
			Args:      args,
			SessionID: s.sessionID(ctx, req),
			Agent:     s.opts.Agent,
			Model:     s.opts.Model,
			Front:     s.front(req.ClientInfo()),
			Client:    clientOf(req, id),
		}
		if err := s.claimSession(ctx, call.SessionID); err != nil {
			return toResult(runtime.Result{}, err, nil), nil
		}
		if s.opts.AskFallback == config.AskFallbackInbox {
			// Whatever the client: one that cannot elicit parks its
			// questions there, one that can but leaves one unanswered
			// (cancel) too.
			ctx = withInbox(ctx, boundedInbox{s})
		}
		switch elicitMode(req) {
		case elicitRoundTrip:
			return s.startParked(ctx, req, call), nil
		case elicitDirect:
			ctx = withElicitor(ctx, func(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
				return s.elicitWhileServing(ctx, req.Session.Elicit, p)
			})
		case elicitNone:
			if s.opts.AskFallback == config.AskFallbackAllow {
				ctx = withFallbackAllow(ctx, s.log)
			}
		}
		p := newProgress(req.Session, req.Params.GetProgressToken(), s.log)
		p.attach(ctx)
		call.OnMetadata = p.update
		if s.opts.AskFallback == config.AskFallbackInbox {
			ctx = withInboxNote(ctx, req.Session, p, s.opts.Inbox) // inboxnote.go
		}
		done := s.opts.Metrics.begin(s.reg, id)
		res, err := s.reg.Call(ctx, call)
		done(err)
		p.detach()
		r := toResult(res, err, s.splicerOf(req.Session))
		s.proj.linkOutput(res, r)
		return r, nil
	}
}

// sessionID is the toolhost session of a call: the client's choice in
// _meta, else the MCP session a fleet keeps (fleet.go), else the MCP
// session id (Streamable HTTP), else an id made for the connection (stdio,
// in-memory) and kept until it closes.
func (s *Server) sessionID(ctx context.Context, req *sdk.CallToolRequest) string {
	if v, ok := req.Params.Meta[MetaSessionKey].(string); ok && v != "" {
		return v
	}
	if id := fleetSessionID(ctx); id != "" {
		return id
	}
	ss := req.Session
	if id := ss.ID(); id != "" {
		return "mcp_" + id
	}
	if v, ok := s.sessions.Load(ss); ok {
		return v.(string)
	}
	id := runtime.NewID("mcp")
	if v, loaded := s.sessions.LoadOrStore(ss, id); loaded {
		return v.(string)
	}
	go func() {
		_ = ss.Wait()
		s.sessions.Delete(ss)
	}()
	return id
}

// toResult turns a registry result or error into an MCP result. Errors are
// results with isError set, never protocol errors, so the model reads them.
// With a splicer (stdio), the output and metadata are encoded here, once,
// and stand in the result as placeholders (stdio.Splicer); sp may be nil.
func toResult(res runtime.Result, err error, sp *stdio.Splicer) *sdk.CallToolResult {
	if err != nil {
		r := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}, IsError: true}
		return r
	}
	text := res.Output
	if sp != nil {
		text = sp.Text(text)
	}
	content := []sdk.Content{&sdk.TextContent{Text: text}}
	for _, a := range res.Attachments {
		if c := attachmentContent(a); c != nil {
			content = append(content, c)
		}
	}
	r := &sdk.CallToolResult{Content: content}
	r.Meta = sdk.Meta{MetaTitleKey: res.Title}
	if len(res.Metadata) > 0 {
		// Metadata that does not encode is left out rather than failing
		// the call: the output is what the model needs.
		if raw, err := stdio.AppendJSONValue(nil, map[string]any(res.Metadata)); err == nil {
			r.Meta[MetaMetadataKey] = json.RawMessage(raw)
			if sp != nil {
				if p, ok := sp.Value(raw); ok {
					r.Meta[MetaMetadataKey] = p
				}
			}
		}
	}
	return r
}
