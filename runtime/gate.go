package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
)

// The gate is the first step of every call, whatever route brought it
// (toolhost call, the MCP server, batch, task, the agent loop): all of them
// end in Registry.Call, and Call runs the gate before hooks, validation or
// the tool. It answers two questions.
//
//  1. Is the tool offered to this agent on this model, under the agent's
//     rules plus the call's own (Call.Rules)? The answer is the same one
//     Registry.Tools gives when it lists tools — one function, unavailable,
//     decides both — so a tool that is not listed cannot be called by any
//     route either. A refusal is an *UnavailableError that tells the model
//     the tool is not available and names the config key a user would
//     change, instead of routing the call somewhere else.
//  2. Does a tool that does not check its own permission (wasm, plugin and
//     MCP-client tools, any tool that leaves Definition.ChecksOwnPermission
//     unset) have its id's permission? The gate asks it — permission
//     permission.ToolPermission(id), pattern "*" — so deny refuses and ask
//     asks, exactly as a rule for a built-in tool would.
//
// The invalid tool is not offered; the registry reaches it only by routing
// a call it cannot understand, and that routed call skips the gate.

// UnavailableError is a call to a tool the agent is not offered: disabled
// by a "tools" map, denied outright by a permission rule, or not available
// here (a feature flag that is off, a model that uses another edit tool, no
// person to ask). Its message is written for the model: the tool is not
// available, do not retry, and what a user would change to enable it.
type UnavailableError struct {
	Tool  string
	Agent string
	// Reason says why the tool is not offered.
	Reason string
	// Remedy says how a user enables it ("" when it cannot be enabled for
	// this call, such as a tool a subagent session never gets).
	Remedy string
	// Err is the *permission.DeniedError when a rule denies the tool
	// outright, so permission.Kind reports "denied"; nil otherwise.
	Err error
}

func (e *UnavailableError) Error() string {
	msg := fmt.Sprintf("tool %q is not available to the %s agent: %s; do not call it again", e.Tool, e.Agent, e.Reason)
	if e.Remedy != "" {
		msg += ". A user can enable it with " + e.Remedy
	}
	return msg
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// Available answers the gate's first question for a call without running
// it: nil when c.Tool is offered to c.Agent on c.Model under the agent's
// rules and c.Rules, else the *UnavailableError Call would return (or the
// error naming an unknown agent). It neither initialises the tool nor asks
// permission.
func (r *Registry) Available(c Call) error {
	agent, err := r.Agent(c.Agent)
	if err != nil {
		return err
	}
	if u := r.unavailable(c.Tool, c.Model, agent, c.Rules); u != nil {
		return u
	}
	return nil
}

// gate admits a call or refuses it: first whether the tool is offered, then
// (after the tool is initialised, which the second question needs) its own
// permission when the tool does not check one itself. rules are the agent's
// rules followed by the call's (Call.Rules).
func (r *Registry) gate(ctx context.Context, c Call, agent *Agent, rules permission.Ruleset) (*prepared, error) {
	if u := r.unavailable(c.Tool, c.Model, agent, c.Rules); u != nil {
		r.log.Info("call refused: tool not offered", "tool", c.Tool, "agent", agent.Name, "reason", u.Reason)
		return nil, u
	}
	p, err := r.prepare(ctx, c.Tool, agent, c.Model)
	if err != nil {
		return nil, err
	}
	if p.def.ChecksOwnPermission {
		return p, nil
	}
	meta := map[string]any{"tool": c.Tool, "source": string(p.source)}
	if len(c.Args) > 0 && json.Valid(c.Args) {
		meta["arguments"] = json.RawMessage(c.Args)
	}
	err = r.perms.Ask(ctx, rules, permission.Request{
		SessionID:  c.SessionID,
		MessageID:  c.MessageID,
		CallID:     c.CallID,
		Tool:       c.Tool,
		Permission: permission.ToolPermission(c.Tool),
		Patterns:   []string{"*"},
		Always:     []string{"*"},
		Metadata:   meta,
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// usesApplyPatch reports whether a model edits files with apply_patch
// instead of edit and write: the GPT models from gpt-5 on (not gpt-4*, not
// the open-weight gpt-oss), as OpenCode chooses.
func usesApplyPatch(model string) bool {
	return strings.Contains(model, "gpt-") && !strings.Contains(model, "oss") && !strings.Contains(model, "gpt-4")
}

// unavailable decides whether id is offered to agent on model under the
// agent's rules followed by callRules, and when it is not, says why and how to enable it. Registry.Tools (via
// offered) and the gate both ask it, so listing and calling cannot
// disagree. An unknown model ("") makes no choice between the edit tools:
// a direct call may use either, while a listing shows edit and write.
func (r *Registry) unavailable(id, model string, agent *Agent, callRules permission.Ruleset) *UnavailableError {
	cfg := r.opts.Config
	refuse := func(reason, remedy string) *UnavailableError {
		return &UnavailableError{Tool: id, Agent: agent.Name, Reason: reason, Remedy: remedy}
	}
	switch id {
	case "invalid":
		return refuse("it only reports calls the host could not understand, and is reached by routing, never called", "")
	case "apply_patch":
		if model != "" && !usesApplyPatch(model) {
			return refuse(fmt.Sprintf("model %s edits files with edit and write; apply_patch is offered to the GPT models from gpt-5 on", model), "")
		}
	case "edit", "write":
		if usesApplyPatch(model) {
			return refuse(fmt.Sprintf("model %s edits files with apply_patch instead", model), "")
		}
	case "websearch", "codesearch":
		if cfg.Search == nil {
			return refuse("no search endpoint is configured", `a "search" section in the config`)
		}
	case "lsp":
		if !cfg.Experimental.LSPTool {
			return refuse("the lsp tool is experimental and off", `"experimental": {"lsp_tool": true}`)
		}
	case "batch":
		if !cfg.Experimental.BatchTool {
			return refuse("the batch tool is experimental and off", `"experimental": {"batch_tool": true}`)
		}
	case "question":
		if r.opts.Questioner == nil {
			return refuse("no person can answer questions in this host", "")
		}
	}
	// The last rule for the tool's permission decides, the call's rules
	// after the agent's (permission.Disabled over both).
	if rule, ok := lastRuleFor(id, callRules); ok {
		if deniesOutright(rule) {
			// The call's rules (a subagent session's) are not the user's
			// to change.
			return deniedBy(refuse("permission "+rule.String()+" denies it to this call", ""), id, rule)
		}
	} else if rule, ok := lastRuleFor(id, agent.Rules); ok && deniesOutright(rule) {
		return deniedBy(refuse("permission "+rule.String()+" denies it outright", permissionRemedy(id, agent.Name, rule)), id, rule)
	}
	if on, key := toolSwitch(cfg.Tools, id); !on {
		return refuse(fmt.Sprintf(`the config disables it with "tools": {%q: false}`, key), fmt.Sprintf(`"tools": {%q: true}`, id))
	}
	if on, key := toolSwitch(agent.Tools, id); !on {
		return refuse(fmt.Sprintf(`the %s agent's config disables it with "tools": {%q: false}`, agent.Name, key),
			fmt.Sprintf(`"agent": {%q: {"tools": {%q: true}}}`, agent.Name, id))
	}
	return nil
}

// deniesOutright reports whether rule, the last for a tool's permission,
// hides the tool: pattern "*" and action deny. A partial deny ({"bash":
// {"rm *": "deny"}}) leaves the tool offered, since other calls may run.
func deniesOutright(rule permission.Rule) bool {
	return rule.Pattern == "*" && rule.Action == permission.Deny
}

// deniedBy makes u a permission denial by rule, so permission.Kind and the
// exit code treat it as one.
func deniedBy(u *UnavailableError, id string, rule permission.Rule) *UnavailableError {
	u.Err = &permission.DeniedError{Permission: permission.ToolPermission(id), Pattern: "*", Rules: permission.Ruleset{rule}}
	return u
}

// lastRuleFor is the last rule for id's permission, whatever its pattern.
func lastRuleFor(id string, rules permission.Ruleset) (permission.Rule, bool) {
	perm := permission.ToolPermission(id)
	for i := len(rules) - 1; i >= 0; i-- {
		if permission.Match(rules[i].Permission, perm) {
			return rules[i], true
		}
	}
	return permission.Rule{}, false
}

// permissionRemedy is the rule a user would write to allow a tool an
// agent's rule denies outright: in the agent's section when the rule is a
// built-in agent's own, else in the top-level "permission" (the rule's
// source, shown in the reason, says which file holds it).
func permissionRemedy(id, agent string, rule permission.Rule) string {
	perm := permission.ToolPermission(id)
	if strings.HasPrefix(rule.Source, ruleSourceAgent) {
		return fmt.Sprintf(`"agent": {%q: {"permission": {%q: "allow"}}}`, agent, perm)
	}
	return fmt.Sprintf(`"permission": {%q: "allow"}`, perm)
}

// toolSwitch applies a tools map ({"webfetch": false, "mcp_*": false}) to
// id and returns the key that decided ("" when none matched, which means
// on): an exact id wins, else the last matching wildcard in sorted order.
func toolSwitch(m map[string]bool, id string) (on bool, key string) {
	if v, ok := m[id]; ok {
		return v, id
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	on = true
	for _, k := range keys {
		if permission.Match(k, id) {
			on, key = m[k], k
		}
	}
	return on, key
}
