package runtime

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// Context is what a running tool knows about its call and can do besides
// returning: report progress (Metadata) and ask permission (Ask).
// Cancellation is the ctx passed to Execute.
type Context struct {
	SessionID string
	MessageID string
	Agent     string
	// Model is the model the call is made for ("" when unknown); a tool
	// that calls other tools (batch) passes it on, so the gate offers them
	// as it offers this one.
	Model  string
	CallID string
	Tool   string // the tool's id

	// Directory is the working directory; Worktree the project root (the
	// git worktree containing Directory, or Directory itself). Relative
	// paths resolve against Directory; paths outside Worktree need the
	// external_directory permission.
	Directory string
	Worktree  string

	// Extra is caller data, passed through untouched. Tools read well-known
	// keys such as ExtraBypassCwdCheck.
	Extra map[string]any

	// Store is the session store (approvals, read stamps, todos, tool
	// state, transcripts). A Registry and NewContext always set it; a host
	// built without a store gets a session.Memory.
	Store session.Store

	// Logger carries the call's attributes (tool, session, call id).
	Logger *slog.Logger

	// Config is the loaded configuration, for tools with settings.
	Config *config.Config

	// Caller runs calls of other tools through the whole wrapper, for
	// tools that call tools (batch); nil outside a registry.
	Caller Caller

	// Rulebook reads the agent's rules and the session's approvals without
	// asking (DecideExternal, the bash sandbox); nil outside a registry.
	Rulebook Rulebook

	// Rules are the call's extra permission rules (Call.Rules); a tool that
	// calls other tools passes them on.
	Rules permission.Ruleset

	// Questioner asks a person questions (question tool); nil when nobody can.
	Questioner Questioner

	// Diagnoser reports language server diagnostics of files a tool has
	// changed (the edit tools); nil when the host runs no language servers.
	Diagnoser Diagnoser

	// Truncation is the wrapper's (limits, saved-output directory), for a
	// tool that bounds its own output with a Spool; see OutputTruncation.
	Truncation *Truncation
	// CanDelegate says the agent may hand work to a subagent (the task
	// tool), which changes the truncation hint.
	CanDelegate bool
	// Front is the front end the call comes from (Call.Front): how it
	// names tools, and whether the write tools require a read first.
	Front Front
	// Client is what the front end can do for the tool while it runs:
	// show its logs, sample, elicit (client.go). Zero: nothing.
	Client Client
	// StateDirs are toolhost's own directories (the data directory with
	// the session store and saved outputs, the cache directory with
	// compiled modules). The bash sandbox never lets a command write them.
	StateDirs []string

	onMetadata func(title string, meta map[string]any)
	ask        func(ctx context.Context, req permission.Request) error
	paths      *callPaths    // resolved paths and external decisions of this call (pathcache.go)
	roots      *projectRoots // the registry's memory of its roots' real paths; nil outside a registry
}

// ExtraBypassCwdCheck, set to true in Extra, lets file tools reach paths
// outside the project without the external_directory permission.
const ExtraBypassCwdCheck = "bypassCwdCheck"

// Metadata reports live progress: a title and partial metadata (bash sends
// its output so far). The caller sees each update as it happens.
func (c *Context) Metadata(title string, meta map[string]any) {
	if c.onMetadata != nil {
		c.onMetadata(title, meta)
	}
}

// Ask requests permission. It returns nil when allowed, or a
// *permission.DeniedError, *permission.RejectedError or
// *permission.CorrectedError; return that error from Execute unchanged.
// SessionID, CallID and Tool are filled in from the context.
func (c *Context) Ask(ctx context.Context, req permission.Request) error {
	if req.SessionID == "" {
		req.SessionID = c.SessionID
	}
	if req.CallID == "" {
		req.CallID = c.CallID
	}
	if req.MessageID == "" {
		req.MessageID = c.MessageID
	}
	if req.Tool == "" {
		req.Tool = c.Tool
	}
	if c.ask == nil {
		return &permission.RejectedError{Permission: req.Permission}
	}
	return c.ask(ctx, req)
}

// NewContext builds a Context for tests and for hosts that run a tool
// outside a Registry. metadata and ask may be nil (Ask then rejects). A nil
// Store becomes a new session.Memory, which lives as long as the Context
// and its copies.
func NewContext(base Context, metadata func(string, map[string]any), ask func(context.Context, permission.Request) error) *Context {
	c := &base
	c.onMetadata, c.ask = metadata, ask
	c.paths = newCallPaths()
	if c.Store == nil {
		c.Store = session.NewMemory()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// OutputTruncation returns the wrapper's truncation, or outside a registry
// one with the configured limits saving under DefaultDataDir.
func (c *Context) OutputTruncation() *Truncation {
	if c.Truncation != nil {
		return c.Truncation
	}
	var out config.ToolOutput
	if c.Config != nil {
		out = c.Config.ToolOutput
	}
	return &Truncation{MaxLines: out.Lines(), MaxBytes: out.Bytes(), Dir: filepath.Join(DefaultDataDir(), "tool-output")}
}

// Questioner asks a person free-form questions (the question tool). Hosts
// without a person to ask leave it nil, and the tool is not offered.
type Questioner interface {
	AskQuestions(ctx context.Context, qs []Question) ([][]string, error)
}

// Question is one question for a person, with optional choices.
type Question struct {
	Question string   `json:"question" jsonschema:"description=The complete question to ask"`
	Header   string   `json:"header,omitempty" jsonschema:"description=Very short label (max 12 chars)"`
	Options  []string `json:"options,omitempty" jsonschema:"description=Choices to offer; the person may also type their own answer"`
	Multiple bool     `json:"multiple,omitempty" jsonschema:"description=Allow selecting more than one option"`
}
