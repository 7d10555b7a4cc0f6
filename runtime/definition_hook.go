package runtime

import (
	"context"
	"encoding/json"
)

// DefinitionHook is an optional ability of a Hook: it may change how a
// tool is presented to the model (OpenCode's tool.definition). The
// registry consults every hook that implements it when it initialises a
// tool for an agent and model, in the order hooks were added, and caches
// the result like the definition itself.
type DefinitionHook interface {
	// Definition may change in.Description and in.Parameters. An error is
	// logged and the definition kept as it was before this hook.
	Definition(ctx context.Context, in *DefinitionInput) error
}

// DefinitionInput is the input of the tool.definition hook.
type DefinitionInput struct {
	Tool        string
	Agent       string
	Model       string
	Description string
	Parameters  json.RawMessage
}

// applyDefinitionHooks runs the definition hooks on a freshly initialised
// definition. The definition is copied before any change, since a tool may
// hand out a shared *Definition. A hook that returns parameters the
// registry cannot compile is logged and ignored. complete is false when a
// hook failed: the result is then used for this call but not cached, so a
// hook that failed once (a timeout on a busy machine, a trapped instance)
// is asked again next time instead of being left out for good.
func (r *Registry) applyDefinitionHooks(ctx context.Context, id string, agent *Agent, model string, def *Definition) (_ *Definition, complete bool) {
	complete = true
	r.mu.RLock()
	hooks := r.hooks
	r.mu.RUnlock()
	for _, h := range hooks {
		dh, ok := h.(DefinitionHook)
		if !ok {
			continue
		}
		in := &DefinitionInput{Tool: id, Agent: agent.Name, Model: model, Description: def.Description, Parameters: def.Parameters}
		if err := dh.Definition(ctx, in); err != nil {
			r.log.Warn("tool.definition hook failed; definition kept", "tool", id, "err", err)
			complete = false
			continue
		}
		if in.Description == def.Description && string(in.Parameters) == string(def.Parameters) {
			continue
		}
		if _, err := CompileSchema(id, in.Parameters); err != nil {
			r.log.Warn("tool.definition hook returned an invalid schema; definition kept", "tool", id, "err", err)
			continue
		}
		d := *def
		d.Description, d.Parameters = in.Description, in.Parameters
		def = &d
	}
	return def, complete
}
