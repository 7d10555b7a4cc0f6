package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Caller is what a tool that calls other tools (batch) needs from the host,
// and all it gets: a call made through it takes the whole path a direct
// call takes — the gate, hooks, validation, permissions, truncation — so
// it reaches nothing a direct call could not. The Registry implements it.
type Caller interface {
	// Call runs one call; see Registry.Call.
	Call(ctx context.Context, c Call) (Result, error)
	// Has reports whether a tool id exists, offered or not.
	Has(id string) bool
	// Offered lists the ids offered for c.Agent on c.Model under c.Rules;
	// see Registry.Offered.
	Offered(c Call) ([]string, error)
}

// Rulebook reads the permission rules that apply to a call without asking
// anyone, for tools that judge many paths they were not asked to open (see
// Context.DecideExternal) or set up a sandbox from the rules. The Registry
// implements it.
type Rulebook interface {
	// AgentRules is the named agent's complete rule set.
	AgentRules(agent string) (permission.Ruleset, error)
	// Approved is a session's "always" approvals.
	Approved(ctx context.Context, session string) (permission.Ruleset, error)
}

var (
	_ Caller   = (*Registry)(nil)
	_ Rulebook = (*Registry)(nil)
)

// Call runs one tool call through the whole wrapper (see run). A call to an
// unknown tool, or with arguments that are not JSON, is routed to the
// fallback tool (Traits.Fallback, the built-in invalid), which tells the
// model what went wrong; its result comes back with a nil error. Any other
// failure returns an error the front end shows the model: an
// *UnavailableError (the gate: the tool is not offered to this agent,
// whatever route the call took), a permission error (see permission.Kind;
// the gate asks the tool's own permission for tools that do not check it
// themselves), a *ValidationError, a *HookError, a *PanicError, or the
// tool's own error.
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
		return r.invalid(ctx, c, agent, fmt.Sprintf("Model tried to call unavailable tool '%s'. Available tools: %s.", c.Tool, strings.Join(r.offered(c.Model, agent, nil, true), ", ")))
	}
	if len(strings.TrimSpace(string(c.Args))) > 0 && !json.Valid(c.Args) {
		return r.invalid(ctx, c, agent, fmt.Sprintf("The arguments for tool '%s' are not valid JSON: %s", c.Tool, truncateForMessage(string(c.Args))))
	}
	return r.run(ctx, c, agent, false)
}

// invalid routes a call the registry cannot understand to the fallback
// tool, or answers it directly when there is none.
func (r *Registry) invalid(ctx context.Context, c Call, agent *Agent, msg string) (Result, error) {
	id, ok := r.fallback()
	if !ok {
		return Result{Title: "Invalid Tool", Output: "The arguments provided to the tool are invalid: " + msg, Metadata: map[string]any{}}, nil
	}
	args, _ := json.Marshal(map[string]string{"tool": c.Tool, "error": msg})
	c.Tool, c.Args = id, args
	return r.run(ctx, c, agent, true) // routed, so not gated: the fallback is never offered
}

func truncateForMessage(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// canDelegate reports whether agent on model may use a tool that
// delegates to a subagent (Traits.Delegates), which changes the truncation
// hint: such a tool is offered to it (see unavailable), so the hint never
// suggests a tool the model cannot call.
func (r *Registry) canDelegate(agent *Agent, model string) bool {
	for _, id := range r.delegatingTools() {
		if r.unavailable(id, model, agent, nil, false) == nil {
			return true
		}
	}
	return false
}

// delegatingTools lists the ids whose tool delegates, worked out once per
// generation of the registry: every call asks (canDelegate), and going
// through the whole table each time was a hundred map lookups a call.
func (r *Registry) delegatingTools() []string {
	r.mu.RLock()
	if d := r.delegates; d.valid && d.gen == r.gen {
		r.mu.RUnlock()
		return d.ids
	}
	gen := r.gen
	var ids []string
	for id := range r.tools {
		if e, _ := r.tools.resolve(id); e.traits.Delegates {
			ids = append(ids, id)
		}
	}
	r.mu.RUnlock()
	r.mu.Lock()
	if r.gen == gen {
		r.delegates = delegatingIDs{gen: gen, ids: ids, valid: true}
	}
	r.mu.Unlock()
	return ids
}

// delegatingIDs is delegatingTools' memory.
type delegatingIDs struct {
	gen   uint64
	ids   []string
	valid bool
}
