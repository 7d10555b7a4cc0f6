// Package tooltest is a conformance suite every toolhost tool — native, wasm
// or MCP — can run, the way testing/fstest.TestFS checks an fs.FS:
//
//	func TestReadConforms(t *testing.T) { tooltest.Run(t, builtins.Read()) }
//
// It checks the contract the runtime and the model rely on, not the tool's
// own behaviour: a valid id, a description, an object JSON Schema that
// compiles, arguments that violate the schema rejected with the standard
// message before the tool runs, a call with a cancelled context that
// returns instead of hanging, and no panics on odd input.
package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// validID is what model APIs accept as a function name.
var validID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Options adjust Run for tools with special needs.
type Options struct {
	// Agent is the agent the tool is initialised for. Default "build".
	Agent string
	// Timeout bounds each call. Default 30 s.
	Timeout time.Duration
}

// Run checks that tool meets the runtime's tool contract.
func Run(t *testing.T, tool runtime.Tool, opts ...Options) {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	id := tool.ID()
	if !validID.MatchString(id) {
		t.Fatalf("tool id %q is not a valid function name (^[a-zA-Z0-9_-]{1,64}$)", id)
	}
	dir := t.TempDir()
	reg, err := runtime.NewRegistry(runtime.Options{
		// Every tool the registry can offer is offered: the experimental
		// tools are on, search is configured (on a loopback port nothing
		// listens on; the asker rejects before any search is made), and a
		// questioner exists (it answers nothing).
		Config: &config.Config{
			Experimental: config.Experimental{BatchTool: true, LSPTool: true},
			Search:       &config.Search{Endpoint: "http://127.0.0.1:9/mcp"},
		},
		Questioner: noAnswers{},
		DataDir:    t.TempDir(),
		Directory:  dir,
		Worktree:   dir,
		// Every question is answered "reject": conformance calls must not
		// change anything outside the temp project.
		Asker: permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
			return permission.Reply{Kind: permission.Reject}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceRuntime, tool)
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	agent, err := reg.Agent(o.Agent)
	if err != nil {
		t.Fatal(err)
	}

	def, err := tool.Init(ctx, runtime.InitContext{Agent: agent})
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	if err := reg.Available(runtime.Call{Tool: id, Agent: agent.Name}); err != nil {
		// Only the invalid tool: the registry reaches it by routing a call
		// it cannot understand, and the gate refuses it by name.
		t.Run("a tool the registry never offers is refused by the gate", func(t *testing.T) {
			_, err := reg.Call(ctx, runtime.Call{Tool: id, Args: json.RawMessage(`{}`)})
			var ue *runtime.UnavailableError
			if !errors.As(err, &ue) {
				t.Fatalf("call of unoffered %s: err = %v, want *runtime.UnavailableError", id, err)
			}
		})
		return
	}
	t.Run("has a description for the model", func(t *testing.T) {
		if strings.TrimSpace(def.Description) == "" {
			t.Error("description is empty")
		}
	})
	var schema map[string]any
	t.Run("parameters are an object JSON Schema that compiles", func(t *testing.T) {
		if err := json.Unmarshal(def.Parameters, &schema); err != nil {
			t.Fatalf("parameters are not a JSON object: %v", err)
		}
		if schema["type"] != "object" {
			t.Errorf("parameters type = %v, want object", schema["type"])
		}
		if _, err := runtime.CompileSchema(id, def.Parameters); err != nil {
			t.Error(err)
		}
	})
	t.Run("arguments of the wrong type are rejected with the standard message", func(t *testing.T) {
		props, _ := schema["properties"].(map[string]any)
		bad := map[string]any{}
		for name, p := range props {
			pm, _ := p.(map[string]any)
			if pm["type"] == "string" {
				bad[name] = map[string]any{"not": "a string"}
			} else {
				bad[name] = "\x00not-a-" + toString(pm["type"])
			}
		}
		if len(bad) == 0 {
			t.Skip("the tool takes no typed arguments")
		}
		args, _ := json.Marshal(bad)
		_, err := reg.Call(ctx, runtime.Call{Tool: id, Args: args})
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) && (err == nil || !strings.Contains(err.Error(), "invalid arguments")) {
			t.Fatalf("call with %s: err = %v, want a validation error", args, err)
		}
		if ve != nil && !strings.Contains(ve.Error(), "Please rewrite the input so it satisfies the expected schema.") {
			t.Errorf("validation message lacks the rewrite hint: %s", ve)
		}
	})
	t.Run("a cancelled call returns without hanging or panicking", func(t *testing.T) {
		cctx, ccancel := context.WithCancel(ctx)
		ccancel()
		done := make(chan error, 1)
		go func() {
			_, err := reg.Call(cctx, runtime.Call{Tool: id, Args: json.RawMessage(`{}`)})
			done <- err
		}()
		select {
		case err := <-done:
			var pe *runtime.PanicError
			if errors.As(err, &pe) {
				t.Fatalf("tool panicked: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("call with a cancelled context did not return")
		}
	})
	t.Run("odd but valid JSON never panics", func(t *testing.T) {
		for _, args := range []string{`{}`, `{"unexpected":"field"}`, `null`} {
			_, err := reg.Call(ctx, runtime.Call{Tool: id, Args: json.RawMessage(args)})
			var pe *runtime.PanicError
			if errors.As(err, &pe) {
				t.Errorf("args %s: tool panicked: %v", args, err)
			}
		}
	})
}

// noAnswers is a questioner with nobody behind it.
type noAnswers struct{}

func (noAnswers) AskQuestions(context.Context, []runtime.Question) ([][]string, error) {
	return nil, errors.New("conformance tests ask nobody")
}

func toString(v any) string {
	s, _ := v.(string)
	return s
}
