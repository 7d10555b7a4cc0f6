package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolhost/toolhost/runtime/permission"
)

// A tool is initialised once per (id, agent, model): Init may adapt the
// description to the agent (skill lists the skills it may load), and the
// definition hooks and the compiled schema are cached with it. Any change
// of tools or hooks empties the cache.

type defKey struct{ id, agent, model string }

// prepared is an initialised tool with its compiled schema.
type prepared struct {
	def    *Definition
	schema *compiledSchema
	source Source
	traits Traits
}

// ToolInfo is an initialised tool as a front end lists it.
type ToolInfo struct {
	ID          string          `json:"id"`
	Source      Source          `json:"source"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// Traits are what the tool declares (the MCP server turns Hints into
	// annotations). Not part of the JSON form.
	Traits Traits `json:"-"`
}

// Tools returns the tools offered to one agent on one model, initialised,
// sorted by id. Tools that fail to initialise are logged and left out.
func (r *Registry) Tools(ctx context.Context, model, agentName string) ([]ToolInfo, error) {
	agent, err := r.Agent(agentName)
	if err != nil {
		return nil, err
	}
	var out []ToolInfo
	for _, id := range r.offered(model, agent, nil, true) {
		p, err := r.prepare(ctx, id, agent, model)
		if err != nil {
			r.log.Warn("tool failed to initialise; left out", "tool", id, "err", err)
			continue
		}
		out = append(out, ToolInfo{ID: id, Source: p.source, Description: p.def.Description, Parameters: p.def.Parameters, Traits: p.traits})
	}
	return out, nil
}

// Offered lists the ids the gate admits for c.Agent on c.Model under the
// agent's rules and c.Rules, sorted (c.Tool is ignored). Unlike Tools it
// initialises nothing, and for an unknown model it keeps both alternatives
// a direct call may use, unless c.Listed asks for the set Tools lists.
// Part of Caller.
func (r *Registry) Offered(c Call) ([]string, error) {
	agent, err := r.Agent(c.Agent)
	if err != nil {
		return nil, err
	}
	return r.offered(c.Model, agent, c.Rules, c.Listed), nil
}

// offered lists the tools agent is offered on model, sorted: those the
// gate would admit (see unavailable). listing asks for the set a listing
// shows (Env.Listing).
func (r *Registry) offered(model string, agent *Agent, callRules permission.Ruleset, listing bool) []string {
	var out []string
	for _, id := range r.IDs() {
		if r.unavailable(id, model, agent, callRules, listing) == nil {
			out = append(out, id)
		}
	}
	return out
}

// prepare initialises the tool id names for agent and model, from the
// cache when it can.
func (r *Registry) prepare(ctx context.Context, id string, agent *Agent, model string) (*prepared, error) {
	key := defKey{id, agent.Name, model}
	r.mu.RLock()
	p, ok := r.defs[key]
	e, exists := r.tools.resolve(id)
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
	if def == nil {
		return nil, fmt.Errorf("init %s: the tool returned no definition; this is a bug in the tool", id)
	}
	if def.Parameters == nil {
		d := *def // the tool may hand out one Definition to every caller
		d.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		def = &d
	}
	def, complete := r.applyDefinitionHooks(ctx, id, agent, model, def)
	cs, err := CompileSchema(id, def.Parameters)
	if err != nil {
		return nil, err
	}
	p = &prepared{def: def, schema: cs, source: e.source, traits: e.traits}
	r.mu.Lock()
	if cur, ok := r.tools.resolve(id); ok && cur.gen == e.gen && complete {
		r.defs[key] = p
	}
	r.mu.Unlock()
	return p, nil
}
