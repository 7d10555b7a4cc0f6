package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The steps of the chain after the gate, in the order run composes them.
// Each takes what it needs as arguments, never the Registry, so each is
// tested alone (steps_test.go).

// logCall logs how every call ended and how long it took: failures at
// Info (refusals included), successes at Debug. now is the clock.
func logCall(now func() time.Time) step {
	return func(next handler) handler {
		return func(ctx context.Context, in *invocation) (Result, error) {
			start := now()
			res, err := next(ctx, in)
			if err != nil {
				in.log.Info("tool call failed", "dur", now().Sub(start), "err", err)
			} else {
				in.log.Debug("tool call done", "dur", now().Sub(start), "bytes", len(res.Output))
			}
			return res, err
		}
	}
}

// prepareTool initialises the tool the call names (prepare caches it per
// agent and model) and hands it to the rest of the chain.
func prepareTool(prepare func(ctx context.Context, id string, agent *Agent, model string) (*prepared, error)) step {
	return func(next handler) handler {
		return func(ctx context.Context, in *invocation) (Result, error) {
			p, err := prepare(ctx, in.call.Tool, in.agent, in.call.Model)
			if err != nil {
				return Result{}, err
			}
			in.tool = p
			return next(ctx, in)
		}
	}
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

// hooksBefore runs the tool.execute.before hooks in order. Each sees the
// arguments as the one before left them and may change them; the first to
// return an error refuses the call with a *HookError.
func hooksBefore(hooks []Hook) step {
	return func(next handler) handler {
		return func(ctx context.Context, in *invocation) (Result, error) {
			c := in.call
			before := &BeforeExecute{Tool: c.Tool, SessionID: c.SessionID, CallID: c.CallID, Agent: in.agent.Name, Args: in.args}
			for _, h := range hooks {
				if err := h.BeforeExecute(ctx, before); err != nil {
					return Result{}, &HookError{Tool: c.Tool, Err: err}
				}
			}
			in.args = before.Args
			return next(ctx, in)
		}
	}
}

// validateArgs checks the arguments against the tool's schema, coercing
// quoted numbers, and words a failure with the tool's own formatter when
// it has one (errors.As still finds the *ValidationError).
func validateArgs(next handler) handler {
	return func(ctx context.Context, in *invocation) (Result, error) {
		args, err := in.tool.schema.validate(in.call.Tool, in.args)
		if err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) && in.tool.def.FormatValidationError != nil {
				return Result{}, &formattedValidationError{msg: in.tool.def.FormatValidationError(ve), ve: ve}
			}
			return Result{}, err
		}
		in.args = args
		return next(ctx, in)
	}
}

// hooksAfter runs the tool.execute.after hooks in order on the final
// result (or error) of a call that got past validation. A hook may change
// the result; its own error is logged and the result kept.
func hooksAfter(hooks []Hook) step {
	return func(next handler) handler {
		return func(ctx context.Context, in *invocation) (Result, error) {
			res, err := next(ctx, in)
			c := in.call
			after := &AfterExecute{Tool: c.Tool, SessionID: c.SessionID, CallID: c.CallID, Agent: in.agent.Name, Args: in.args, Result: &res, Err: err}
			for _, h := range hooks {
				if herr := h.AfterExecute(ctx, after); herr != nil {
					in.log.Warn("tool.execute.after hook failed; result kept", "err", herr)
				}
			}
			return res, err
		}
	}
}

// truncateOutput bounds a successful result's output with t, saving the
// whole of it, unless the tool reported metadata "truncated" itself (read
// pages by offset and says so; cutting again would break its footer).
// hint says what the model is pointed to (see Truncation.Truncate).
func truncateOutput(t *Truncation, hint Hint) step {
	return func(next handler) handler {
		return func(ctx context.Context, in *invocation) (Result, error) {
			res, err := next(ctx, in)
			if err != nil {
				return res, err
			}
			if res.Metadata == nil {
				res.Metadata = map[string]any{}
			}
			if _, ok := res.Metadata["truncated"]; ok {
				return res, nil
			}
			dir := KeepHead
			if in.tool.def.TruncateTail {
				dir = KeepTail
			}
			tr, err := t.Truncate(res.Output, dir, hint)
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
	}
}

// PanicError is a tool that panicked; the host survives and the model is told.
type PanicError struct {
	Tool  string
	Value any
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("tool %s crashed: %v; this is a bug in the tool, not in your call", e.Tool, e.Value)
}

// recoverPanic turns a panic below it into a *PanicError, logged with the
// panic's value, so one broken tool cannot take the host down.
func recoverPanic(next handler) handler {
	return func(ctx context.Context, in *invocation) (res Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				in.log.Error("tool panicked", "panic", v)
				res, err = Result{}, &PanicError{Tool: in.call.Tool, Value: v}
			}
		}()
		return next(ctx, in)
	}
}

// execute is the end of the chain: the tool itself, with the validated
// arguments. A result's nil Metadata and Attachments become empty, so
// front ends and hooks need not check.
func execute(ctx context.Context, in *invocation) (Result, error) {
	res, err := in.tool.def.Execute(ctx, in.args, in.tc)
	if res.Metadata == nil {
		res.Metadata = map[string]any{}
	}
	if res.Attachments == nil {
		res.Attachments = []Attachment{}
	}
	return res, err
}
