package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"time"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Every call, whatever its source and route, runs through one chain of
// small steps, composed in run below and read top to bottom. A step does
// its part and calls the rest of the chain, or returns without calling it
// to stop the call; each lives in its own function with its own tests
// (steps.go, and the gate's in gate.go), the way net/http middleware wraps
// a Handler.

// invocation is one call on its way through the chain: what the steps read
// and fill in.
type invocation struct {
	call  Call
	agent *Agent
	// rules are the agent's rules followed by the call's (Call.Rules).
	rules permission.Ruleset
	// tool is the initialised tool, set by prepareTool.
	tool *prepared
	// args are the arguments as the steps have left them: the model's,
	// then as hooks changed them, then as validation coerced them.
	args json.RawMessage
	// tc is the context the tool runs with.
	tc  *Context
	log *slog.Logger
}

// handler runs the rest of the chain.
type handler func(ctx context.Context, in *invocation) (Result, error)

// step is one unit of the chain, wrapping the rest of it.
type step func(next handler) handler

// chain composes steps around h; the first step runs first.
func chain(h handler, steps ...step) handler {
	for i := len(steps) - 1; i >= 0; i-- {
		h = steps[i](h)
	}
	return h
}

// unless leaves s out of the chain when skip is set.
func unless(skip bool, s step) step {
	if skip {
		return func(next handler) handler { return next }
	}
	return s
}

// run is the wrapper. routed says the registry itself sent the call to the
// fallback tool (Call), which no agent is offered, so the gate's two
// questions are skipped for it.
func (r *Registry) run(ctx context.Context, c Call, agent *Agent, routed bool) (Result, error) {
	in := r.newInvocation(c, agent)
	hooks := r.hookList()
	return chain(execute,
		traceCall(r.tracer.p.Load()),                    // a span around everything below (TraceCalls)
		logCall(time.Now),                               // logging: the outcome and duration of everything below
		watchCall(r.watchers.list()),                    // front ends showing calls live (WatchCalls)
		unless(routed, offer(r.unavailable)),            // gate: is the tool offered to this agent on this model?
		prepareTool(r.prepare),                          // initialise it (cached per agent and model)
		unless(routed, askOwnPermission(r.perms)),       // gate: its own permission, unless it checks its own
		hooksBefore(hooks),                              // tool.execute.before: may change the arguments or refuse
		validateArgs,                                    // against the tool's schema, coercing quoted numbers
		hooksAfter(hooks),                               // tool.execute.after: sees the final result
		truncateOutput(r.trunc, in.tc.TruncationHint()), // bound what the model reads, save the rest
		recoverPanic,                                    // a crashing tool becomes a *PanicError
	)(ctx, in)
}

// newInvocation is c on its way in: the rules, the logger and the tool's
// Context, which asks permission under the agent's and the call's rules.
func (r *Registry) newInvocation(c Call, agent *Agent) *invocation {
	log := r.log.With("tool", c.Tool, "session", c.SessionID, "call", c.CallID, "agent", agent.Name)
	rules := agent.Rules
	if len(c.Rules) > 0 {
		rules = append(slices.Clone(agent.Rules), c.Rules...)
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
		Caller:     r,
		Rulebook:   r,
		Questioner: r.opts.Questioner,
		Diagnoser:  r.opts.Diagnoser,
		Rules:      c.Rules,
		onMetadata: c.OnMetadata,

		Truncation:  r.trunc,
		CanDelegate: r.canDelegate(agent, c.Model),
		Front:       c.Front,
		Client:      c.Client,
		StateDirs:   r.StateDirs(),
		paths:       newCallPaths(),
		roots:       &r.roots,
	}
	if tc.Extra == nil {
		tc.Extra = map[string]any{}
	}
	tc.ask = func(ctx context.Context, req permission.Request) error {
		return r.perms.Ask(ctx, rules, req)
	}
	return &invocation{call: c, agent: agent, rules: rules, args: c.Args, tc: tc, log: log}
}
