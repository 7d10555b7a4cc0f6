package runtime

import (
	"context"
	"encoding/json"
	"errors"
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
//     MCP-client tools, any tool that does not declare
//     Traits.ChecksOwnPermission) have its own permission? The gate asks
//     it — the declared Traits.Permission, else the id; the declared
//     Traits.Patterns, else "*" — so deny refuses and ask asks, exactly as
//     a rule for a built-in tool would.
//
// Both questions read what the tool declares (Traits), never its name: a
// module called edit.wasm is governed by the permission "edit.wasm" names
// unless it declares another. The fallback tool (invalid) is not offered;
// the registry reaches it only by routing a call it cannot understand, and
// that routed call skips the gate. The two questions are two steps of the
// chain (offer and askOwnPermission), with the tool's initialisation
// between them, which the second needs.

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
	if u := r.unavailable(c.Tool, c.Model, agent, c.Rules, c.Listed); u != nil {
		return u
	}
	return nil
}

// offer is the gate's first question as a step: a tool the agent is not
// offered on this model (as a listing shows it, for a Listed call) is
// refused with the *UnavailableError unavailable returns, before anything
// about it is initialised.
func offer(unavailable func(id, model string, agent *Agent, callRules permission.Ruleset, listing bool) *UnavailableError) step {
	return func(next handler) handler {
		return func(ctx context.Context, in *invocation) (Result, error) {
			if u := unavailable(in.call.Tool, in.call.Model, in.agent, in.call.Rules, in.call.Listed); u != nil {
				return Result{}, u
			}
			return next(ctx, in)
		}
	}
}

// askOwnPermission is the gate's second question as a step: for a tool
// that does not check its own permission (Traits.ChecksOwnPermission
// unset), ask its permission (Traits.Permission, else its id) for the
// patterns its Traits derive from the arguments ("*" by default), under
// the agent's and the call's rules. It runs after prepareTool.
func askOwnPermission(perms *permission.Service) step {
	return func(next handler) handler {
		return func(ctx context.Context, in *invocation) (Result, error) {
			tr, c := in.tool.traits, in.call
			if tr.ChecksOwnPermission && !tr.Claimed {
				return next(ctx, in)
			}
			meta := map[string]any{"tool": c.Tool, "source": string(in.tool.source)}
			if len(c.Args) > 0 && json.Valid(c.Args) {
				meta["arguments"] = json.RawMessage(c.Args)
			}
			ask := func(perm string, patterns []string) error {
				return perms.Ask(ctx, in.rules, permission.Request{
					SessionID:  c.SessionID,
					MessageID:  c.MessageID,
					CallID:     c.CallID,
					Tool:       c.Tool,
					Permission: perm,
					Patterns:   patterns,
					Always:     []string{"*"},
					Metadata:   meta,
				})
			}
			perm := permissionOf(c.Tool, tr)
			// A claimed permission adds to the tool's own, never replaces
			// it: the rules written for the tool by name are asked first.
			if tr.Claimed && perm != c.Tool {
				if err := ask(c.Tool, []string{"*"}); err != nil {
					return Result{}, err
				}
			}
			if err := ask(perm, patternsOf(tr, c.Args)); err != nil {
				return Result{}, err
			}
			return next(ctx, in)
		}
	}
}

// unavailable decides whether id is offered to agent on model under the
// agent's rules followed by callRules, and when it is not, says why and
// how to enable it. Registry.Tools (via offered) and the gate both ask it,
// so listing and calling cannot disagree, except that a listing (listing
// set) lets a tool's availability pick one of two alternatives for an
// unknown model (see Env.Listing). What the tool declares decides first
// (Traits: never offered when it is the fallback, else its Available),
// then the rules for its permission, then the "tools" maps.
func (r *Registry) unavailable(id, model string, agent *Agent, callRules permission.Ruleset, listing bool) *UnavailableError {
	refuse := func(reason, remedy string) *UnavailableError {
		return &UnavailableError{Tool: id, Agent: agent.Name, Reason: reason, Remedy: remedy}
	}
	tr := r.Traits(id)
	if tr.Fallback {
		return refuse("it only reports calls the host could not understand, and is reached by routing, never called", "")
	}
	if tr.Available != nil {
		if err := available(tr.Available, Env{Model: model, Listing: listing, Config: r.opts.Config, CanAsk: r.opts.Questioner != nil}); err != nil {
			var u *UnavailableError
			if errors.As(err, &u) {
				return refuse(u.Reason, u.Remedy)
			}
			return refuse(err.Error(), "")
		}
	}
	// The last rule for the tool's permission decides, the call's rules
	// after the agent's. A claimed permission (a module's declaration) is
	// checked in addition to the tool's id, which comes first.
	perms := []string{permissionOf(id, tr)}
	if tr.Claimed && perms[0] != id {
		perms = []string{id, perms[0]}
	}
	for _, perm := range perms {
		if rule, ok := lastRuleFor(perm, callRules); ok {
			if deniesOutright(rule) {
				// The call's rules (a subagent session's) are not the
				// user's to change.
				return deniedBy(refuse("permission "+rule.String()+" denies it to this call", ""), perm, rule)
			}
		} else if rule, ok := lastRuleFor(perm, agent.Rules); ok && deniesOutright(rule) {
			return deniedBy(refuse("permission "+rule.String()+" denies it outright", permissionRemedy(perm, agent.Name, rule)), perm, rule)
		}
	}
	if on, key := toolSwitch(r.opts.Config.Tools, id); !on {
		return refuse(fmt.Sprintf(`the config disables it with "tools": {%q: false}`, key), fmt.Sprintf(`"tools": {%q: true}`, id))
	}
	if on, key := toolSwitch(agent.Tools, id); !on {
		return refuse(fmt.Sprintf(`the %s agent's config disables it with "tools": {%q: false}`, agent.Name, key),
			fmt.Sprintf(`"agent": {%q: {"tools": {%q: true}}}`, agent.Name, id))
	}
	return nil
}

// available runs a tool's Available; a panic is a refusal, so a broken
// declaration hides the tool instead of crashing a listing.
func available(f func(Env) error, env Env) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("its availability check crashed (%v); this is a bug in the tool", v)
		}
	}()
	return f(env)
}

// deniesOutright reports whether rule, the last for a tool's permission,
// hides the tool: pattern "*" and action deny. A partial deny ({"bash":
// {"rm *": "deny"}}) leaves the tool offered, since other calls may run.
func deniesOutright(rule permission.Rule) bool {
	return rule.Pattern == "*" && rule.Action == permission.Deny
}

// deniedBy makes u a permission denial by rule, so permission.Kind and the
// exit code treat it as one.
func deniedBy(u *UnavailableError, perm string, rule permission.Rule) *UnavailableError {
	u.Err = &permission.DeniedError{Permission: perm, Pattern: "*", Rules: permission.Ruleset{rule}}
	return u
}

// lastRuleFor is the last rule for permission perm, whatever its pattern.
func lastRuleFor(perm string, rules permission.Ruleset) (permission.Rule, bool) {
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
func permissionRemedy(perm, agent string, rule permission.Rule) string {
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
