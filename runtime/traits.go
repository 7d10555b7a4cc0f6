package runtime

import (
	"context"
	"encoding/json"

	"github.com/toolhost/toolhost/runtime/config"
)

// Traits are what a tool declares about itself. The registry's listing and
// gate, the permission check, the MCP server's annotations and the agent
// loop read them instead of knowing tools by name, so a tool from any
// source that declares the same traits is treated the same way — and a
// tool that merely shares a built-in's name (a module edit.wasm) gets none
// of the built-in's treatment.
//
// The zero value is the safe default: governed by the permission named
// like the tool, asked about by the gate before every call (pattern "*"),
// offered everywhere the rules allow, and claiming nothing about its
// effects.
type Traits struct {
	// Permission is the permission whose rules govern the tool: the one
	// that hides it when denied outright ({"edit": "deny"}) and the one
	// the gate asks for a tool that does not check its own. Default: the
	// tool's id. The built-in edit, write, multiedit and apply_patch
	// declare "edit", so one rule covers every way of changing a file.
	Permission string

	// Patterns derives from a call's arguments the patterns the gate asks
	// Permission about, for a tool that does not check its own permission.
	// It sees the arguments as the model sent them, before validation, so
	// it must cope with anything. Default (nil, or no patterns returned):
	// "*", which a rule for the whole tool decides.
	Patterns func(args json.RawMessage) []string

	// ChecksOwnPermission declares that Execute asks, through tc.Ask and on
	// every call, the permission that governs the tool (read asks "read"
	// for the path, bash "bash" for each command). The gate then leaves
	// permission to the tool. Unset — wasm, plugin and MCP-client tools,
	// and any tool that does not declare it — the gate asks Permission
	// with Patterns before the call runs: deny refuses, ask asks. Leaving
	// it unset is the safe default; it can only add a question.
	ChecksOwnPermission bool

	// Available decides whether the tool is offered in env: to a model, behind
	// a feature flag, only where a person can answer. Return NotOffered
	// with the reason and the remedy to refuse. Nil: offered everywhere.
	// The "tools" maps and permission rules apply afterwards, to every tool.
	Available func(env Env) error

	// Fallback marks the tool that receives the calls the registry cannot
	// understand — an unknown tool, arguments that are not JSON — with
	// arguments {"tool": <the tool called>, "error": <what was wrong>}. It
	// is never offered and never called directly. When several tools
	// declare it, the one with the lowest id is used.
	Fallback bool

	// Delegates marks a tool that hands work to a subagent (task). When an
	// agent may use one, the truncation hint suggests delegating the
	// search through a saved output to it.
	Delegates bool

	// Claimed marks traits declared by code toolhost cannot vouch for (a
	// wasm module's traits export): they may add questions but never
	// remove one. A Claimed Permission other than the tool's id is asked
	// in addition to the id, so a rule written for the tool by name
	// ({"jira": "deny"}) still applies, and ChecksOwnPermission is
	// ignored: the gate always asks.
	Claimed bool
	// Hints are what the tool claims about its effects, shown to MCP
	// clients as tool annotations. Nil claims nothing, which tells a client
	// to assume the worst: the honest answer for code nobody here reviewed.
	Hints *Hints
}

// Hints are a tool's claims about its effects (MCP tool annotations).
type Hints struct {
	// ReadOnly: the tool changes nothing.
	ReadOnly bool
	// Destructive: the tool may overwrite or delete (meaningful when not
	// ReadOnly).
	Destructive bool
	// Idempotent: calling it again with the same arguments has no further
	// effect.
	Idempotent bool
	// OpenWorld: the tool reaches outside the project (the web).
	OpenWorld bool
}

// Env is what a tool's availability depends on besides permission rules:
// the model a call is made for and what the host provides.
type Env struct {
	// Model is the model id; "" when unknown.
	Model string
	// Listing is true when the registry lists tools for a model (Registry
	// Tools) rather than admitting one call. A listing for an unknown
	// model picks one of two alternatives (edit and write, not
	// apply_patch), while a direct call may use either.
	Listing bool
	// Config is the host's configuration: feature flags, endpoints. Never
	// nil.
	Config *config.Config
	// CanAsk reports that a person can answer questions (a Questioner).
	CanAsk bool
}

// NotOffered is the error an Available function returns to refuse: reason
// says why the tool is not offered here, remedy what a user would change
// ("" when nothing would). The registry fills in the tool and the agent.
func NotOffered(reason, remedy string) error {
	return &UnavailableError{Reason: reason, Remedy: remedy}
}

// Declarer is an optional interface of a Tool: a tool that implements it
// declares its Traits. A tool that does not gets the zero Traits, the safe
// default.
type Declarer interface {
	Traits() Traits
}

// TraitsOf returns what t declares, or the zero Traits.
func TraitsOf(t Tool) Traits {
	if d, ok := t.(Declarer); ok {
		return d.Traits()
	}
	return Traits{}
}

// Declare returns t declaring tr instead of whatever t declared, for tools
// built with Define:
//
//	runtime.Declare(runtime.Define("deploy", "…", deploy), runtime.Traits{ChecksOwnPermission: true})
func Declare(t Tool, tr Traits) Tool {
	if d, ok := t.(declared); ok {
		t = d.Tool
	}
	return declared{Tool: t, traits: tr}
}

// WithOwnPermission returns t declaring ChecksOwnPermission in addition to
// its other traits, for a tool whose handler asks its own permission.
func WithOwnPermission(t Tool) Tool {
	tr := TraitsOf(t)
	tr.ChecksOwnPermission = true
	return Declare(t, tr)
}

// declared is a Tool with traits attached by Declare.
type declared struct {
	Tool
	traits Traits
}

func (d declared) Traits() Traits { return d.traits }

// Init calls the wrapped tool's Init.
func (d declared) Init(ctx context.Context, ic InitContext) (*Definition, error) {
	return d.Tool.Init(ctx, ic)
}

// Unwrap returns the tool Declare wrapped, for code that looks for other
// optional interfaces (the module a wasm tool comes from).
func (d declared) Unwrap() Tool { return d.Tool }

var (
	_ Tool     = declared{}
	_ Declarer = declared{}
)

// permissionOf is the permission that governs id, a tool declaring tr.
func permissionOf(id string, tr Traits) string {
	if tr.Permission != "" {
		return tr.Permission
	}
	return id
}

// patternsOf are the patterns the gate asks for a call of a tool declaring
// tr: the declared derivation, else "*" — also when the derivation panics
// on hostile arguments, so it can never skip the question.
func patternsOf(tr Traits, args json.RawMessage) (ps []string) {
	defer func() {
		if recover() != nil || len(ps) == 0 {
			ps = []string{"*"}
		}
	}()
	if tr.Patterns != nil {
		ps = tr.Patterns(args)
	}
	return ps
}
