package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// Options configure a Registry. Zero values are usable: no store means
// session state lives only in memory, no asker means every "ask" outcome is
// refused with a message saying how to allow it.
type Options struct {
	Config     *config.Config
	Store      *session.Store
	Asker      permission.Asker
	Questioner Questioner
	Logger     *slog.Logger
	// Agents overrides the agents resolved from Config.
	Agents map[string]*Agent
	// DataDir holds saved full outputs (tool-output/). Default
	// $XDG_DATA_HOME/toolhost, else ~/.local/share/toolhost.
	DataDir string
	// CacheDir is toolhost's cache (compiled modules, inspections), kept
	// out of the bash sandbox's reach like DataDir. Empty: none.
	CacheDir string
	// Directory is the working directory; Worktree the project root.
	Directory string
	Worktree  string
}

// Registry holds every tool from every source and runs calls through the
// wrapper: hooks, validation, permissions, panic recovery, truncation,
// logging. It is safe for concurrent use.
type Registry struct {
	opts   Options
	log    *slog.Logger
	perms  *permission.Service
	trunc  *Truncation
	agents map[string]*Agent

	mu    sync.RWMutex
	tools map[string]entry
	hooks []Hook
	defs  map[defKey]*prepared
	gen   uint64

	changes changeFeed // told of every change of tools or hooks (changes.go)
}

type entry struct {
	tool   Tool
	source Source
	gen    uint64 // changes whenever the id is (re)registered
}

type defKey struct{ id, agent, model string }

// prepared is an initialised tool with its compiled schema.
type prepared struct {
	def    *Definition
	schema *compiledSchema
	source Source
}

// NewRegistry returns an empty registry; add tools with Add and Register.
func NewRegistry(opts Options) (*Registry, error) {
	if opts.Config == nil {
		opts.Config = &config.Config{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Directory == "" {
		opts.Directory, _ = os.Getwd()
	}
	if opts.Worktree == "" {
		opts.Worktree = opts.Directory
	}
	if opts.DataDir == "" {
		opts.DataDir = DefaultDataDir()
	}
	agents := opts.Agents
	if agents == nil {
		var err error
		if agents, err = ResolveAgents(opts.Config); err != nil {
			return nil, err
		}
	}
	allowSavedOutputs(agents, filepath.Join(opts.DataDir, "tool-output"))
	return &Registry{
		opts:   opts,
		log:    opts.Logger,
		perms:  permission.NewService(opts.Store, opts.Asker, opts.Logger),
		trunc:  &Truncation{MaxLines: opts.Config.ToolOutput.Lines(), MaxBytes: opts.Config.ToolOutput.Bytes(), Dir: filepath.Join(opts.DataDir, "tool-output")},
		agents: agents,
		tools:  map[string]entry{},
		defs:   map[defKey]*prepared{},
	}, nil
}

// allowSavedOutputs lets every agent read the full outputs the wrapper
// saves, without an external_directory question: the truncation hint sends
// the model there. The rule goes after the defaults and the built-in
// agent's own rules, before the user's, so a user's rule still decides.
func allowSavedOutputs(agents map[string]*Agent, dir string) {
	rule := permission.Rule{Permission: PermissionExternalDirectory, Pattern: filepath.Join(dir, "*"), Action: permission.Allow, Source: "saved tool output"}
	for _, a := range agents {
		i := 0
		for i < len(a.Rules) && (a.Rules[i].Source == RuleSourceDefault || strings.HasPrefix(a.Rules[i].Source, ruleSourceAgent)) {
			i++
		}
		a.Rules = slices.Insert(slices.Clone(a.Rules), i, rule)
	}
}

// DefaultDataDir is $XDG_DATA_HOME/toolhost, else ~/.local/share/toolhost.
func DefaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "toolhost")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share", "toolhost")
}

// Permissions returns the permission service (approvals, pending requests).
func (r *Registry) Permissions() *permission.Service { return r.perms }

// Config returns the registry's configuration.
func (r *Registry) Config() *config.Config { return r.opts.Config }

// Agent returns the named agent, or the default agent for "".
func (r *Registry) Agent(name string) (*Agent, error) {
	if name == "" {
		name = r.opts.Config.DefaultAgent
		if name == "" {
			name = config.DefaultAgent
		}
	}
	a, ok := r.agents[name]
	if !ok {
		names := make([]string, 0, len(r.agents))
		for n := range r.agents {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown agent %q; agents: %s", name, strings.Join(names, ", "))
	}
	return a, nil
}

// Agents returns every agent by name.
func (r *Registry) Agents() map[string]*Agent { return r.agents }

// Add adds tools from a source. Sources are added in precedence order
// (builtin, wasm, plugin, mcp, runtime); a tool whose id already exists
// replaces it, with a logged warning when the sources differ.
func (r *Registry) Add(src Source, tools ...Tool) {
	r.mu.Lock()
	defer r.changed() // runs after the unlock below: subscribers may call the registry
	defer r.mu.Unlock()
	for _, t := range tools {
		id := t.ID()
		if old, ok := r.tools[id]; ok && old.source != src {
			r.log.Warn("tool id collision: later source overrides", "tool", id, "was", old.source, "now", src)
		}
		r.gen++
		r.tools[id] = entry{tool: t, source: src, gen: r.gen}
	}
	clear(r.defs)
}

// Register adds or replaces a tool at run time.
func (r *Registry) Register(t Tool) { r.Add(SourceRuntime, t) }

// Remove deletes tools by id.
func (r *Registry) Remove(ids ...string) {
	r.mu.Lock()
	defer r.changed() // runs after the unlock below: subscribers may call the registry
	defer r.mu.Unlock()
	for _, id := range ids {
		delete(r.tools, id)
	}
	clear(r.defs)
}

// AddHook appends a hook; hooks run in the order added.
func (r *Registry) AddHook(h Hook) {
	r.mu.Lock()
	defer r.changed() // runs after the unlock below: subscribers may call the registry
	defer r.mu.Unlock()
	r.hooks = append(r.hooks, h)
	clear(r.defs) // definition hooks may change what is cached
}

// IDs lists every tool id, sorted.
func (r *Registry) IDs() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ids := make([]string, 0, len(r.tools))
	for id := range r.tools {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Has reports whether a tool id exists.
func (r *Registry) Has(id string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.tools[id]
	return ok
}

// Source returns where a tool came from.
func (r *Registry) Source(id string) (Source, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[id]
	return e.source, ok
}

// ToolInfo is an initialised tool as a front end lists it.
type ToolInfo struct {
	ID          string          `json:"id"`
	Source      Source          `json:"source"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Tools returns the tools offered to one agent on one model, initialised,
// sorted by id. Tools that fail to initialise are logged and left out.
func (r *Registry) Tools(ctx context.Context, model, agentName string) ([]ToolInfo, error) {
	agent, err := r.Agent(agentName)
	if err != nil {
		return nil, err
	}
	var out []ToolInfo
	for _, id := range r.offered(model, agent) {
		p, err := r.prepare(ctx, id, agent, model)
		if err != nil {
			r.log.Warn("tool failed to initialise; left out", "tool", id, "err", err)
			continue
		}
		out = append(out, ToolInfo{ID: id, Source: p.source, Description: p.def.Description, Parameters: p.def.Parameters})
	}
	return out, nil
}

// offered lists the tools agent is offered on model, sorted: those the gate
// would admit (see unavailable), except that a listing picks one set of
// edit tools even when the model is unknown — edit and write.
func (r *Registry) offered(model string, agent *Agent) []string {
	var out []string
	for _, id := range r.IDs() {
		if id == "apply_patch" && model == "" {
			continue
		}
		if r.unavailable(id, model, agent, nil) == nil {
			out = append(out, id)
		}
	}
	return out
}

func (r *Registry) prepare(ctx context.Context, id string, agent *Agent, model string) (*prepared, error) {
	key := defKey{id, agent.Name, model}
	r.mu.RLock()
	p, ok := r.defs[key]
	e, exists := r.tools[id]
	r.mu.RUnlock()
	if ok {
		return p, nil
	}
	if !exists {
		return nil, fmt.Errorf("unknown tool %q", id)
	}
	def, err := e.tool.Init(ctx, InitContext{Agent: agent, Model: model})
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", id, err)
	}
	if def.Parameters == nil {
		def.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	def = r.applyDefinitionHooks(ctx, id, agent, model, def)
	cs, err := CompileSchema(id, def.Parameters)
	if err != nil {
		return nil, err
	}
	p = &prepared{def: def, schema: cs, source: e.source}
	r.mu.Lock()
	if cur, ok := r.tools[id]; ok && cur.gen == e.gen {
		r.defs[key] = p
	}
	r.mu.Unlock()
	return p, nil
}

// Call runs one tool call through the whole wrapper. A call to an unknown
// tool, or with arguments that are not JSON, is routed to the invalid tool,
// which tells the model what went wrong; its result comes back with a nil
// error. Any other failure returns an error the front end shows the model:
// an *UnavailableError (the gate: the tool is not offered to this agent,
// whatever route the call took), a permission error (see permission.Kind;
// the gate asks the tool's own permission for tools that do not check it
// themselves), a *ValidationError, a *HookError, or the tool's own error.
func (r *Registry) Call(ctx context.Context, c Call) (Result, error) {
	agent, err := r.Agent(c.Agent)
	if err != nil {
		return Result{}, err
	}
	if c.SessionID == "" {
		c.SessionID = NewID("ses")
	}
	if c.CallID == "" {
		c.CallID = NewID("call")
	}
	if !r.Has(c.Tool) {
		return r.invalid(ctx, c, agent, fmt.Sprintf("Model tried to call unavailable tool '%s'. Available tools: %s.", c.Tool, strings.Join(r.offered(c.Model, agent), ", ")))
	}
	if len(strings.TrimSpace(string(c.Args))) > 0 && !json.Valid(c.Args) {
		return r.invalid(ctx, c, agent, fmt.Sprintf("The arguments for tool '%s' are not valid JSON: %s", c.Tool, truncateForMessage(string(c.Args))))
	}
	return r.run(ctx, c, agent, true)
}

func (r *Registry) invalid(ctx context.Context, c Call, agent *Agent, msg string) (Result, error) {
	if !r.Has("invalid") {
		return Result{Title: "Invalid Tool", Output: "The arguments provided to the tool are invalid: " + msg, Metadata: map[string]any{}}, nil
	}
	args, _ := json.Marshal(map[string]string{"tool": c.Tool, "error": msg})
	c.Tool, c.Args = "invalid", args
	return r.run(ctx, c, agent, false) // routed, so not gated: invalid is never offered
}

func truncateForMessage(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// HookError is a refusal by a tool.execute.before hook.
type HookError struct {
	Tool string
	Err  error
}

func (e *HookError) Error() string {
	return fmt.Sprintf("call to %s refused by hook: %v", e.Tool, e.Err)
}
func (e *HookError) Unwrap() error { return e.Err }

// PanicError is a tool that panicked; the host survives and the model is told.
type PanicError struct {
	Tool  string
	Value any
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("tool %s crashed: %v; this is a bug in the tool, not in your call", e.Tool, e.Value)
}

// run is the wrapper: gate (when gated), hooks before, validation, execute
// with panic recovery, truncation, hooks after, logging.
func (r *Registry) run(ctx context.Context, c Call, agent *Agent, gated bool) (res Result, err error) {
	start := time.Now()
	log := r.log.With("tool", c.Tool, "session", c.SessionID, "call", c.CallID, "agent", agent.Name)
	rules := agent.Rules
	if len(c.Rules) > 0 {
		rules = append(slices.Clone(agent.Rules), c.Rules...)
	}
	var p *prepared
	if gated {
		p, err = r.gate(ctx, c, agent, rules)
	} else {
		p, err = r.prepare(ctx, c.Tool, agent, c.Model)
	}
	if err != nil {
		return Result{}, err
	}
	r.mu.RLock()
	hooks := slices.Clone(r.hooks)
	r.mu.RUnlock()

	args := c.Args
	before := &BeforeExecute{Tool: c.Tool, SessionID: c.SessionID, CallID: c.CallID, Agent: agent.Name, Args: args}
	for _, h := range hooks {
		if err := h.BeforeExecute(ctx, before); err != nil {
			log.Info("call refused by hook", "err", err)
			return Result{}, &HookError{Tool: c.Tool, Err: err}
		}
	}
	args = before.Args

	args, err = p.schema.validate(c.Tool, args)
	if err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) && p.def.FormatValidationError != nil {
			return Result{}, &formattedValidationError{msg: p.def.FormatValidationError(ve), ve: ve}
		}
		return Result{}, err
	}

	tc := &Context{
		SessionID:  c.SessionID,
		MessageID:  c.MessageID,
		Agent:      agent.Name,
		Model:      c.Model,
		CallID:     c.CallID,
		Tool:       c.Tool,
		Directory:  r.opts.Directory,
		Worktree:   r.opts.Worktree,
		Extra:      c.Extra,
		Store:      r.opts.Store,
		Logger:     log,
		Config:     r.opts.Config,
		Registry:   r,
		Questioner: r.opts.Questioner,
		Rules:      c.Rules,
		onMetadata: c.OnMetadata,

		Truncation:  r.trunc,
		CanDelegate: r.canDelegate(agent),
		StateDirs:   r.StateDirs(),
	}
	if tc.Extra == nil {
		tc.Extra = map[string]any{}
	}
	tc.ask = func(ctx context.Context, req permission.Request) error {
		return r.perms.Ask(ctx, rules, req)
	}

	res, err = r.execute(ctx, p.def, args, tc)
	if err == nil {
		res, err = r.truncate(res, p.def, agent)
	}
	after := &AfterExecute{Tool: c.Tool, SessionID: c.SessionID, CallID: c.CallID, Agent: agent.Name, Args: args, Result: &res, Err: err}
	for _, h := range hooks {
		if herr := h.AfterExecute(ctx, after); herr != nil {
			log.Warn("tool.execute.after hook failed; result kept", "err", herr)
		}
	}
	if err != nil {
		log.Info("tool call failed", "dur", time.Since(start), "err", err)
	} else {
		log.Debug("tool call done", "dur", time.Since(start), "bytes", len(res.Output))
	}
	return res, err
}

func (r *Registry) execute(ctx context.Context, def *Definition, args json.RawMessage, tc *Context) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			tc.Logger.Error("tool panicked", "panic", v)
			res, err = Result{}, &PanicError{Tool: tc.Tool, Value: v}
		}
	}()
	res, err = def.Execute(ctx, args, tc)
	if res.Metadata == nil {
		res.Metadata = map[string]any{}
	}
	if res.Attachments == nil {
		res.Attachments = []Attachment{}
	}
	return res, err
}

func (r *Registry) truncate(res Result, def *Definition, agent *Agent) (Result, error) {
	if _, ok := res.Metadata["truncated"]; ok {
		// The tool manages its own output size (read pages by offset and
		// says so); cutting it again would break its footer.
		return res, nil
	}
	dir := KeepHead
	if def.TruncateTail {
		dir = KeepTail
	}
	tr, err := r.trunc.Truncate(res.Output, dir, r.canDelegate(agent))
	if err != nil {
		return res, err
	}
	res.Output = tr.Content
	res.Metadata["truncated"] = tr.Truncated
	if tr.Truncated {
		res.Metadata["outputPath"] = tr.Path
	}
	return res, nil
}

// canDelegate reports whether agent may use the task tool, which changes
// the truncation hint.
func (r *Registry) canDelegate(agent *Agent) bool {
	return r.Has("task") && !permission.Disabled([]string{"task"}, agent.Rules)["task"]
}

// StateDirs returns toolhost's own directories: the data directory and,
// when set, the cache directory.
func (r *Registry) StateDirs() []string {
	dirs := []string{r.opts.DataDir}
	if r.opts.CacheDir != "" {
		dirs = append(dirs, r.opts.CacheDir)
	}
	return dirs
}

// NewID returns a time-sortable id with a prefix: "ses_0189ab…".
func NewID(prefix string) string {
	return fmt.Sprintf("%s_%x%s", prefix, time.Now().UnixNano(), randHex(4))
}
