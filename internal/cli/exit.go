package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// The CLI's vocabulary of failures. Every kind of error a command ends
// with is a typed value — a usage mistake, invalid arguments, a tool not
// offered, a permission denied, rejected or left unanswered — and one
// table, errorKinds, maps each kind (found with errors.As, through any
// wrapping) to the exit status that reports it and to the words a person
// at the CLI reads. The errors' own messages are written for a model ("do
// not call it again", "tell the user"); MCP and the agent loop pass them
// on unchanged, and only the CLI rewords them, in personMessage.

// Exit codes. ExitStatuses says what each means; README.md documents the
// same table (TestTheReadmeDocumentsEveryExitStatus).
const (
	ExitOK         = 0
	ExitToolFailed = 1
	ExitUsage      = 2
	ExitPermission = 3
	// ExitUnanswered: a permission question needed a person's answer and
	// none came (permission.UnansweredError), at a CLI with no terminal
	// and no --yes too. Not a refusal: allowing the call with a rule, or
	// answering it, lets it run.
	ExitUnanswered = 4
)

// ExitStatus is one exit status of toolhost and what it means.
type ExitStatus struct {
	Code    int
	Meaning string
}

// ExitStatuses are toolhost's exit statuses, as `toolhost call --help` and
// README.md list them.
var ExitStatuses = []ExitStatus{
	{ExitOK, "success"},
	{ExitToolFailed, "the tool failed (or the command did)"},
	{ExitUsage, "usage error: an unknown command, flag or tool, arguments not JSON or not matching the schema"},
	{ExitPermission, "permission denied or rejected, or the tool is not offered to the agent"},
	{ExitUnanswered, "a permission question nobody answered (no terminal and no --yes, or the wait ended)"},
}

// exitStatusHelp is ExitStatuses as a paragraph of help text.
func exitStatusHelp() string {
	parts := make([]string, len(ExitStatuses))
	for i, s := range ExitStatuses {
		parts[i] = fmt.Sprintf("%d %s", s.Code, s.Meaning)
	}
	return "Exit status: " + strings.Join(parts, "; ") + "."
}

// errorKind is one kind of failure: its exit code, and match, which
// finds an error of the kind in err's chain and returns the words a
// person reads for it.
type errorKind struct {
	code  int
	match func(err error) (words string, ok bool)
}

// kind is the errorKind of the error type T; words, when not nil, words a
// T for a person (nil: its own message).
func kind[T error](code int, words func(T) string) errorKind {
	return errorKind{code: code, match: func(err error) (string, bool) {
		var t T
		if !errors.As(err, &t) {
			return "", false
		}
		if words == nil {
			return t.Error(), true
		}
		return words(t), true
	}}
}

// errorKinds is the table, most specific first: an UnavailableError wraps
// the DeniedError of a rule that denies a tool outright, and is reported
// as the tool not offered.
var errorKinds = []errorKind{
	kind[usageError](ExitUsage, nil),
	kind(ExitUsage, validationWords),
	kind(ExitPermission, unavailableWords),
	kind(ExitUnanswered, unansweredWords),
	kind(ExitPermission, deniedWords),
	kind(ExitPermission, func(e *permission.CorrectedError) string {
		return fmt.Sprintf("permission %s was rejected, with your message: %s", e.Permission, e.Message)
	}),
	kind(ExitPermission, func(e *permission.RejectedError) string {
		return fmt.Sprintf("permission %s was rejected, so nothing was run", e.Permission)
	}),
}

// ExitCode maps an error to the process exit status; the one place that
// does so. A command's own choice (*ExitError) comes first, then the kind
// of err (errorKinds); any other error is a failure (1).
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	for _, k := range errorKinds {
		if _, ok := k.match(err); ok {
			return k.code
		}
	}
	return ExitToolFailed
}

// personMessage is err as a person at the CLI reads it: the first error
// of a kind in errorKinds is replaced by its words, keeping whatever
// context wraps it ("call bash: ...").
func personMessage(err error) string {
	msg := err.Error()
	for _, k := range errorKinds {
		words, ok := k.match(err)
		if !ok {
			continue
		}
		var inner string
		// The kind's own message, to be replaced where it stands.
		for e := err; e != nil; e = errors.Unwrap(e) {
			if w, ok := k.match(e); ok && w == words {
				inner = e.Error()
			}
		}
		if inner != "" && strings.Contains(msg, inner) {
			return strings.Replace(msg, inner, words, 1)
		}
		return words
	}
	return msg
}

func validationWords(e *runtime.ValidationError) string {
	return fmt.Sprintf("invalid arguments for %s: %s (its schema: toolhost tools --json)", e.Tool, strings.Join(e.Problems, "; "))
}

func unavailableWords(e *runtime.UnavailableError) string {
	msg := fmt.Sprintf("tool %q is not offered to the %s agent: %s", e.Tool, e.Agent, e.Reason)
	if e.Remedy != "" {
		msg += "; enable it with " + e.Remedy
	}
	return msg
}

func deniedWords(e *permission.DeniedError) string {
	if e.Reason != "" || len(e.Rules) == 0 {
		return fmt.Sprintf("permission %s for %q is denied: it needs approval, and no one can be asked here; answer at a terminal, pass --yes, or add %s to toolhost.json", e.Permission, e.Pattern, permission.SuggestRule(e.Permission, e.Pattern))
	}
	return fmt.Sprintf("permission %s for %q is denied by the rule %s", e.Permission, e.Pattern, e.Rules[len(e.Rules)-1])
}

func unansweredWords(e *permission.UnansweredError) string {
	msg := fmt.Sprintf("permission %s for %q needs your approval, and nobody answered", e.Permission, e.Pattern)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	remedy := e.Remedy
	if remedy == "" {
		remedy = "add " + permission.SuggestRule(e.Permission, e.Pattern) + " to toolhost.json"
	}
	return msg + "; nothing was run. To allow it, " + remedy
}

// nobodyAsker is the asker of a CLI call with no terminal and no --yes:
// nobody can answer, so every question goes unanswered (exit 4), with how
// to let the call through.
var nobodyAsker = permission.AskerFunc(func(_ context.Context, req permission.Request) (permission.Reply, error) {
	return permission.Reply{}, permission.Unanswered(req, "there is no terminal to ask at", "answer at a terminal, pass --yes, or add %s to toolhost.json", nil)
})

// usageError marks errors in how the command was called (exit 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// ExitError carries an exit code chosen by a command.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ranError marks an error a command's own code returned; anything else
// Execute returns came from cobra before any command ran (an unknown
// command, the wrong number of arguments, a missing or conflicting flag),
// which is a usage error.
type ranError struct{ error }

func (e ranError) Unwrap() error { return e.error }

// markRuns wraps the RunE of cmd and of every command under it, so that
// their errors are told apart from cobra's own (ranError).
func markRuns(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if err := run(c, args); err != nil {
				return ranError{err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markRuns(sub)
	}
}

// Execute runs the command tree NewRootCmd built and returns its error,
// with cobra's own errors (no command ran) marked as usage errors.
func Execute(ctx context.Context, root *cobra.Command) error {
	err := root.ExecuteContext(ctx)
	if err == nil {
		return nil
	}
	var ran ranError
	if errors.As(err, &ran) {
		return ran.error
	}
	var ue usageError
	if errors.As(err, &ue) {
		return err
	}
	return usageError{err}
}
