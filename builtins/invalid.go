package builtins

import (
	"context"
	_ "embed"

	"github.com/toolhost/toolhost/runtime"
)

// invalidToolName is the invalid tool's id.
const invalidToolName = "invalid"

//go:embed invalid.txt
var invalidDescription string

// invalidParams are the invalid tool's arguments: the tool the model tried
// to call and what was wrong with the call.
type invalidParams struct {
	Tool  string `json:"tool" jsonschema_description:"The tool the model tried to call"`
	Error string `json:"error" jsonschema_description:"What was wrong with the call"`
}

// Invalid returns the invalid tool. The registry routes a call to an
// unknown tool, or with arguments that are not JSON, to it, so the model is
// told what went wrong in an ordinary tool result it can act on. It is never
// offered to the model.
func Invalid() runtime.Tool {
	return runtime.Declare(runtime.Define(invalidToolName, invalidDescription, func(_ context.Context, p invalidParams, _ *runtime.Context) (runtime.Result, error) {
		return runtime.Result{
			Title:    "Invalid Tool",
			Output:   "The arguments provided to the tool are invalid: " + p.Error,
			Metadata: map[string]any{"tool": p.Tool},
		}, nil
	}), invalidTraits)
}

// invalidTraits: the registry's fallback: never offered, reached only by
// routing.
var invalidTraits = runtime.Traits{Fallback: true, Hints: &runtime.Hints{}}
