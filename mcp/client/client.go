package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// DefaultTimeout bounds starting a server and listing its tools when the
// config gives no timeout.
const DefaultTimeout = 5 * time.Second

// The states of a configured server.
const (
	StateDisabled  = "disabled"  // "enabled": false
	StateConnected = "connected" // running, tools listed
	StateFailed    = "failed"    // did not start or list tools in time; skipped
	StateExited    = "exited"    // stopped after starting; restarted on the next call
)

// Options configure New.
type Options struct {
	// Directory is where local servers run. Default: the process's.
	Directory string
	// Logger receives client logs and local servers' stderr (at debug).
	Logger *slog.Logger
	// Version is sent to servers as the client version.
	Version string
}

// Manager runs the MCP servers of a configuration and offers their tools.
// Start connects them; Tools returns their tools for a runtime.Registry;
// Close stops them.
type Manager struct {
	opts    Options
	log     *slog.Logger
	servers []*remote // sorted by name
}

// ServerStatus describes one configured server, for `toolhost mcp list`.
type ServerStatus struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	State string `json:"state"`
	Tools int    `json:"tools"`
	Error string `json:"error,omitempty"`
}

// New prepares the servers of cfg (config "mcp") without starting them.
func New(cfg map[string]config.MCPServer, opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	m := &Manager{opts: opts, log: opts.Logger}
	for name, c := range cfg {
		r := &remote{name: name, cfg: c, m: m, log: opts.Logger.With("mcp_server", name), progress: map[string]func(*sdk.ProgressNotificationParams){}}
		if c.Enabled != nil && !*c.Enabled {
			r.state = StateDisabled
		}
		m.servers = append(m.servers, r)
	}
	sort.Slice(m.servers, func(i, j int) bool { return m.servers[i].name < m.servers[j].name })
	return m
}

// Start connects every enabled server in parallel and lists its tools, each
// within its timeout. A server that fails is marked failed and skipped; it
// never holds up the others. Start returns when every server has connected
// or failed.
func (m *Manager) Start(ctx context.Context) {
	var wg sync.WaitGroup
	for _, r := range m.servers {
		if r.state == StateDisabled {
			continue
		}
		wg.Go(func() {
			if err := r.connect(ctx); err != nil {
				r.log.Warn("mcp server skipped", "err", err)
			}
		})
	}
	wg.Wait()
}

// Status reports each configured server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, r := range m.servers {
		r.mu.Lock()
		st := ServerStatus{Name: r.name, Type: r.cfg.Type, State: r.state, Tools: len(r.tools)}
		if r.err != nil {
			st.Error = r.err.Error()
		}
		r.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Tools returns the tools of every connected server, named <server>_<tool>.
func (m *Manager) Tools() []runtime.Tool {
	var out []runtime.Tool
	for _, r := range m.servers {
		r.mu.Lock()
		for _, t := range r.tools {
			out = append(out, &remoteTool{server: r, tool: t, id: ToolID(r.name, t.Name)})
		}
		r.mu.Unlock()
	}
	return out
}

// Close stops every server.
func (m *Manager) Close() error {
	var errs []error
	for _, r := range m.servers {
		r.mu.Lock()
		s := r.session
		r.session = nil
		r.mu.Unlock()
		if s != nil {
			if err := s.Close(); err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
				errs = append(errs, fmt.Errorf("close mcp server %s: %w", r.name, err))
			}
		}
	}
	return errors.Join(errs...)
}

var invalidIDChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })

// maxToolID is the longest tool name model APIs accept (^[a-zA-Z0-9_-]{1,64}$).
const maxToolID = 64

// ToolID is the registry id of an MCP server's tool: "<server>_<tool>",
// other characters replaced by "_", and when longer than 64 characters cut
// and suffixed with a hash of the whole so distinct tools stay distinct.
func ToolID(server, tool string) string {
	id := invalidIDChars().ReplaceAllString(server+"_"+tool, "_")
	if len(id) <= maxToolID {
		return id
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return id[:maxToolID-9] + "_" + hex.EncodeToString(sum[:4])
}

// remote is one configured server and its live connection.
type remote struct {
	name string
	cfg  config.MCPServer
	m    *Manager
	log  *slog.Logger

	mu       sync.Mutex
	state    string
	err      error
	session  *sdk.ClientSession
	tools    []*sdk.Tool
	progress map[string]func(*sdk.ProgressNotificationParams) // by progress token

	connectMu sync.Mutex // one (re)connection at a time
}

func (r *remote) timeout() time.Duration {
	if r.cfg.Timeout > 0 {
		return time.Duration(r.cfg.Timeout) * time.Millisecond
	}
	return DefaultTimeout
}

// connect starts the server and lists its tools within the timeout.
func (r *remote) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	s, tools, err := r.dial(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (timeout %s; raise \"timeout\" in milliseconds in the server's config)", err, r.timeout())
		}
		r.state, r.err = StateFailed, fmt.Errorf("start mcp server %s: %w", r.name, err)
		return r.err
	}
	r.state, r.err, r.session, r.tools = StateConnected, nil, s, tools
	go r.watch(s)
	r.log.Info("mcp server connected", "tools", len(tools))
	return nil
}

// watch marks the server exited when its connection ends.
func (r *remote) watch(s *sdk.ClientSession) {
	err := s.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.session != s {
		return // closed by us, or already replaced
	}
	r.session = nil
	r.state = StateExited
	r.err = fmt.Errorf("mcp server %s exited", r.name)
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		r.err = fmt.Errorf("mcp server %s exited: %w", r.name, err)
	}
	r.log.Warn("mcp server exited; it will be restarted on the next call", "err", err)
}

func (r *remote) dial(ctx context.Context) (*sdk.ClientSession, []*sdk.Tool, error) {
	t, err := r.transport()
	if err != nil {
		return nil, nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "toolhost", Version: r.m.opts.Version}, &sdk.ClientOptions{
		Logger: r.log,
		// No roots: tools get paths as arguments.
		Capabilities:                &sdk.ClientCapabilities{},
		ProgressNotificationHandler: r.onProgress,
	})
	s, err := client.Connect(ctx, t, nil)
	if err != nil {
		if ct, ok := t.(*sdk.CommandTransport); ok && ct.Command.Process != nil {
			_ = ct.Command.Process.Kill()
		}
		return nil, nil, err
	}
	var tools []*sdk.Tool
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			_ = s.Close()
			return nil, nil, fmt.Errorf("list tools: %w", err)
		}
		tools = append(tools, t)
	}
	return s, tools, nil
}

func (r *remote) transport() (sdk.Transport, error) {
	switch r.cfg.Type {
	case "local":
		if len(r.cfg.Command) == 0 {
			return nil, errors.New(`local server without "command"; give the command and its arguments as a list`)
		}
		// Not CommandContext: the server outlives the start-up context.
		cmd := exec.Command(r.cfg.Command[0], r.cfg.Command[1:]...)
		cmd.Dir = r.m.opts.Directory
		cmd.Env = os.Environ()
		for k, v := range r.cfg.Environment {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stderr = &logWriter{log: r.log}
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
	case "remote":
		if r.cfg.URL == "" {
			return nil, errors.New(`remote server without "url"`)
		}
		return &sdk.StreamableClientTransport{
			Endpoint:   r.cfg.URL,
			HTTPClient: &http.Client{Transport: headerTransport{headers: r.cfg.Headers, base: http.DefaultTransport}},
			MaxRetries: 2,
		}, nil
	default:
		return nil, fmt.Errorf("unknown type %q; use local or remote", r.cfg.Type)
	}
}

// live returns a connected session, restarting a server that exited.
func (r *remote) live(ctx context.Context) (*sdk.ClientSession, error) {
	r.mu.Lock()
	s, state := r.session, r.state
	r.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if state == StateDisabled {
		return nil, fmt.Errorf("mcp server %s is disabled", r.name)
	}
	r.connectMu.Lock()
	defer r.connectMu.Unlock()
	r.mu.Lock()
	s = r.session
	r.mu.Unlock()
	if s != nil {
		return s, nil // another call restarted it meanwhile
	}
	r.log.Info("restarting mcp server")
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.session, nil
}

func (r *remote) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	key := fmt.Sprint(req.Params.ProgressToken)
	r.mu.Lock()
	f := r.progress[key]
	r.mu.Unlock()
	if f != nil {
		f(req.Params)
	}
}

// call runs one tool of the server.
func (r *remote) call(ctx context.Context, tool string, args json.RawMessage, tc *runtime.Context) (runtime.Result, error) {
	s, err := r.live(ctx)
	if err != nil {
		return runtime.Result{}, err
	}
	token := tc.CallID
	if token == "" {
		token = runtime.NewID("call")
	}
	r.mu.Lock()
	r.progress[token] = func(p *sdk.ProgressNotificationParams) {
		meta := map[string]any{"progress": p.Progress}
		if p.Total > 0 {
			meta["total"] = p.Total
		}
		if p.Message != "" {
			meta["message"] = p.Message
		}
		tc.Metadata(p.Message, meta)
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.progress, token)
		r.mu.Unlock()
	}()
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	params.SetProgressToken(token)
	res, err := s.CallTool(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return runtime.Result{}, fmt.Errorf("call %s on mcp server %s: %w", tool, r.name, ctx.Err())
		}
		if r.exited(s) {
			return runtime.Result{}, fmt.Errorf("mcp server %s stopped during the call to %s (%v); it will be restarted on the next call, which may be retried", r.name, tool, err)
		}
		return runtime.Result{}, fmt.Errorf("call %s on mcp server %s: %w", tool, r.name, err)
	}
	out := fromContent(res)
	if res.IsError {
		msg := out.Output
		if msg == "" {
			msg = "the tool reported an error without a message"
		}
		return runtime.Result{}, fmt.Errorf("%s", msg)
	}
	out.Title = tool
	return out, nil
}

// exited reports whether s has ended, waiting briefly for the watcher: a
// process that died mid-call fails the call a moment before its connection
// is seen to close.
func (r *remote) exited(s *sdk.ClientSession) bool {
	done := make(chan struct{})
	go func() { _ = s.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		return false
	}
	r.mu.Lock()
	if r.session == s {
		r.session, r.state = nil, StateExited
	}
	r.mu.Unlock()
	return true
}

// remoteTool is one tool of an MCP server as a runtime.Tool.
type remoteTool struct {
	server *remote
	tool   *sdk.Tool
	id     string
}

var _ runtime.Tool = (*remoteTool)(nil)

func (t *remoteTool) ID() string { return t.id }

func (t *remoteTool) Init(context.Context, runtime.InitContext) (*runtime.Definition, error) {
	schema, err := json.Marshal(t.tool.InputSchema)
	if err != nil || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	desc := t.tool.Description
	if desc == "" {
		desc = t.tool.Title
	}
	return &runtime.Definition{
		Description: desc,
		Parameters:  schema,
		Execute:     t.execute,
	}, nil
}

// execute calls the server. The tool does not check a permission itself
// (it declares no runtime.Traits), so the registry's gate
// has already asked the permission named by the tool id, pattern "*":
// rules such as "everything_*": "ask" apply before the server is called.
func (t *remoteTool) execute(ctx context.Context, args json.RawMessage, tc *runtime.Context) (runtime.Result, error) {
	return t.server.call(ctx, t.tool.Name, args, tc)
}

// headerTransport adds configured headers to every request of a remote server.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(req)
}

// logWriter re-emits a local server's stderr through the logger, a line at
// a time at debug level (servers print banners there).
type logWriter struct {
	log *slog.Logger
	mu  sync.Mutex
	buf []byte
}

var _ io.Writer = (*logWriter)(nil)

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		w.log.Debug("mcp server stderr", "line", string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 64<<10 {
		w.log.Debug("mcp server stderr", "line", string(w.buf))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}
