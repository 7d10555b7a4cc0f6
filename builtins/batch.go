package builtins

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/runtime"
)

// batchToolName is the batch tool's id.
const batchToolName = "batch"

// batchMaxCalls is how many calls one batch runs; the rest are reported as
// errors without running.
const batchMaxCalls = 25

// batchDisallowed are the tools a batch may not call: a batch inside a
// batch would multiply the concurrency limit.
var batchDisallowed = []string{batchToolName}

// batchUnsuggested are left out of the "available tools" hint.
var batchUnsuggested = []string{invalidToolName, "patch", "apply_patch", batchToolName}

//go:embed batch.txt
var batchDescriptionTemplate string

var batchDescription = sync.OnceValue(func() string {
	return renderDescription("batch", batchDescriptionTemplate, map[string]any{"MaxCalls": batchMaxCalls})
})

// batchCall is one call in a batch.
type batchCall struct {
	Tool       string         `json:"tool" jsonschema_description:"The name of the tool to execute"`
	Parameters map[string]any `json:"parameters" jsonschema_description:"Parameters for the tool"`
}

// batchParams are the batch tool's arguments.
type batchParams struct {
	ToolCalls []batchCall `json:"tool_calls" jsonschema:"minItems=1" jsonschema_description:"Array of tool calls to execute in parallel"`
}

// batchOutcome is what one call of a batch came to.
type batchOutcome struct {
	Tool    string `json:"tool"`
	Success bool   `json:"success"`
	Title   string `json:"title,omitempty"`
	Error   string `json:"error,omitempty"`

	output      string
	attachments []runtime.Attachment
}

// Batch returns the batch tool: it runs up to 25 calls of other tools at
// once, each through the registry's whole path (validation, hooks,
// permissions, truncation) as tc.Caller.Call, with call ids
// "<batch call id>-<index>", the batch's agent, model and per-call rules:
// the registry's gate refuses a tool that agent is not offered, so a batch
// reaches nothing a direct call could not. Results come back in call order, one failure
// does not stop the others, and batch cannot call itself. The registry
// offers it only when experimental.batch_tool is set.
//
// Result metadata: totalCalls, successful, failed, tools, details (per
// call: tool, success, title, error; a call's own metadata is left out to
// keep the batch's small).
func Batch() runtime.Tool {
	inner := runtime.DefineDynamic(batchToolName, described(batchDescription), runBatch)
	return runtime.Declare(runtime.ToolFunc{Name: batchToolName, InitFunc: func(ctx context.Context, ic runtime.InitContext) (*runtime.Definition, error) {
		def, err := inner.Init(ctx, ic)
		if err != nil {
			return nil, err
		}
		def.FormatValidationError = formatBatchValidationError
		return def, nil
	}}, batchTraits)
}

// batchTraits: offered only with experimental.batch_tool; the gate asks
// "batch" before it runs, and each call inside goes through the gate again.
var batchTraits = runtime.Traits{
	Available: func(env runtime.Env) error {
		if !env.Config.Experimental.BatchTool {
			return runtime.NotOffered("the batch tool is experimental and off", `"experimental": {"batch_tool": true}`)
		}
		return nil
	},
	Hints: &runtime.Hints{},
}

// formatBatchValidationError shows the expected payload, since a malformed
// batch is usually the wrong shape rather than a wrong value.
func formatBatchValidationError(err *runtime.ValidationError) string {
	var b strings.Builder
	b.WriteString("Invalid parameters for tool 'batch':\n")
	for _, p := range err.Problems {
		b.WriteString("  - " + p + "\n")
	}
	b.WriteString("\nExpected payload format:\n  [{\"tool\": \"tool_name\", \"parameters\": {...}}, {...}]")
	return b.String()
}

func runBatch(ctx context.Context, p batchParams, tc *runtime.Context) (runtime.Result, error) {
	if len(p.ToolCalls) == 0 {
		return runtime.Result{}, errors.New("batch: provide at least one tool call")
	}
	if tc.Caller == nil {
		return runtime.Result{}, errors.New("batch needs a tool registry to run calls, and this host runs tools without one; call the tools directly")
	}
	outcomes := make([]batchOutcome, len(p.ToolCalls))
	var wg sync.WaitGroup
	for i, c := range p.ToolCalls {
		if i >= batchMaxCalls {
			outcomes[i] = batchOutcome{Tool: c.Tool, Error: fmt.Sprintf("Maximum of %d tools allowed in batch", batchMaxCalls)}
			continue
		}
		wg.Go(func() { outcomes[i] = batchOne(ctx, tc, i, c) })
	}
	wg.Wait()

	ok := 0
	var attachments []runtime.Attachment
	tools := make([]string, len(outcomes))
	details := make([]batchOutcome, len(outcomes))
	var body strings.Builder
	for i, o := range outcomes {
		tools[i] = o.Tool
		details[i] = o
		if o.Success {
			ok++
			attachments = append(attachments, o.attachments...)
			fmt.Fprintf(&body, "\n\n<tool_result index=\"%d\" tool=%q title=%q>\n%s\n</tool_result>", i+1, o.Tool, o.Title, o.output)
		} else {
			fmt.Fprintf(&body, "\n\n<tool_error index=\"%d\" tool=%q>\n%s\n</tool_error>", i+1, o.Tool, o.Error)
		}
	}
	failed := len(outcomes) - ok
	summary := fmt.Sprintf("All %d tools executed successfully.\n\nKeep using the batch tool for optimal performance in your next response!", ok)
	if failed > 0 {
		summary = fmt.Sprintf("Executed %d/%d tools successfully. %d failed.", ok, len(outcomes), failed)
	}
	return runtime.Result{
		Title:       fmt.Sprintf("Batch execution (%d/%d successful)", ok, len(outcomes)),
		Output:      summary + body.String(),
		Attachments: attachments,
		Metadata: map[string]any{
			"totalCalls": len(outcomes),
			"successful": ok,
			"failed":     failed,
			"tools":      tools,
			"details":    details,
		},
	}, nil
}

// batchOne runs call i of a batch through the registry.
func batchOne(ctx context.Context, tc *runtime.Context, i int, c batchCall) batchOutcome {
	fail := func(format string, args ...any) batchOutcome {
		return batchOutcome{Tool: c.Tool, Error: fmt.Sprintf(format, args...)}
	}
	if slices.Contains(batchDisallowed, c.Tool) {
		return fail("Tool '%s' is not allowed in batch. Disallowed tools: %s", c.Tool, strings.Join(batchDisallowed, ", "))
	}
	// An unknown tool would be routed to the invalid tool and come back as
	// a successful call; report it as the failure it is. A known tool the
	// agent is not offered is refused by the registry's gate.
	if !tc.Caller.Has(c.Tool) {
		offered, err := tc.Caller.Offered(runtime.Call{Agent: tc.Agent, Model: tc.Model, Rules: tc.Rules})
		if err != nil {
			return fail("Tool '%s' not in registry, and the tools offered cannot be listed: %v", c.Tool, err)
		}
		var available []string
		for _, id := range offered {
			if !slices.Contains(batchUnsuggested, id) {
				available = append(available, id)
			}
		}
		return fail("Tool '%s' not in registry. Available tools: %s", c.Tool, strings.Join(available, ", "))
	}
	params := c.Parameters
	if params == nil {
		params = map[string]any{}
	}
	args, err := json.Marshal(params)
	if err != nil {
		return fail("encode parameters: %v", err)
	}
	res, err := tc.Caller.Call(ctx, runtime.Call{
		Tool:      c.Tool,
		Args:      args,
		SessionID: tc.SessionID,
		MessageID: tc.MessageID,
		CallID:    fmt.Sprintf("%s-%d", tc.CallID, i),
		Agent:     tc.Agent,
		Model:     tc.Model,
		Extra:     tc.Extra,
		Rules:     tc.Rules,
		Front:     tc.Front,
		Client:    tc.Client,
	})
	if err != nil {
		return fail("%s", err.Error())
	}
	return batchOutcome{
		Tool: c.Tool, Success: true, Title: res.Title,
		output: res.Output, attachments: res.Attachments,
	}
}
