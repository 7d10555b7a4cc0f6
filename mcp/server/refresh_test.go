package server_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
)

type lateParams struct {
	Text string `json:"text"`
}

func lateTool(id, description string) runtime.Tool {
	return runtime.Define(id, description, func(ctx context.Context, p lateParams, tc *runtime.Context) (runtime.Result, error) {
		return runtime.Result{Title: id, Output: id + ": " + p.Text}, nil
	})
}

// badSchemaTool declares parameters that are not an object schema, which
// the go-sdk refuses (by panicking).
func badSchemaTool(id, schema string) runtime.Tool {
	return runtime.ToolFunc{Name: id, InitFunc: func(context.Context, runtime.InitContext) (*runtime.Definition, error) {
		return &runtime.Definition{
			Description: "A tool with a broken schema.",
			Parameters:  json.RawMessage(schema),
			Execute: func(context.Context, json.RawMessage, *runtime.Context) (runtime.Result, error) {
				return runtime.Result{Output: "ran"}, nil
			},
		}, nil
	}}
}

// listChanged counts notifications/tools/list_changed.
type listChanged chan struct{}

func (l listChanged) handle(context.Context, *sdk.ToolListChangedRequest) {
	select {
	case l <- struct{}{}:
	default: // one pending notification says enough
	}
}

// wait waits for a notification. `toolhost mcp` promises one within 2 s
// (host's BenchmarkPluginFolderReload measures the reload); the limit
// here only tells "late" from "never" on a busy CI machine.
func (l listChanged) wait(t *testing.T, after string) {
	t.Helper()
	select {
	case <-l:
	case <-time.After(45 * time.Second):
		t.Fatalf("no notifications/tools/list_changed within 45 s after %s", after)
	}
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func TestTheToolListFollowsTheRegistryAndClientsAreTold(t *testing.T) {
	t.Parallel()
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "")
			t.Cleanup(func() { f.srv.Close() })
			changed := make(listChanged, 1)
			cs := f.connect(t, proto, &sdk.ClientOptions{ToolListChangedHandler: changed.handle})
			if slices.Contains(toolNames(t, cs), "late") {
				t.Fatal("late offered before it was added")
			}

			f.reg.Add(runtime.SourceWasm, lateTool("late", "Arrives late."))
			changed.wait(t, "a tool was added")
			if !slices.Contains(toolNames(t, cs), "late") {
				t.Fatal("an added tool is not listed")
			}
			if res, out := call(t, cs, "late", map[string]any{"text": "hi"}); res.IsError || out != "late: hi" {
				t.Errorf("call the added tool: isError %v, %q", res.IsError, out)
			}

			f.reg.Add(runtime.SourceWasm, lateTool("late", "Arrives later, in a new version."))
			changed.wait(t, "a tool was replaced")
			var desc string
			for tool, err := range cs.Tools(context.Background(), nil) {
				if err == nil && tool.Name == "late" {
					desc = tool.Description
				}
			}
			if desc != "Arrives later, in a new version." {
				t.Errorf("replaced tool's description = %q, want the new one", desc)
			}

			f.reg.Remove(runtime.SourceWasm, "late")
			changed.wait(t, "a tool was removed")
			if slices.Contains(toolNames(t, cs), "late") {
				t.Error("a removed tool is still listed")
			}
			// The go-sdk answers a call of an unlisted tool with a
			// protocol error: the tool is unknown.
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "late", Arguments: map[string]any{"text": "hi"}})
			if err == nil && !res.IsError {
				t.Errorf("a removed tool still answers: %q", text(res))
			}
		})
	}
}

func TestToolsWithSchemasTheProtocolRefusesAreLeftOutNotFatal(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	t.Cleanup(func() { f.srv.Close() })
	cs := f.connect(t, protoLegacy, nil)
	schemas := []string{
		`{"type": "string"}`,
		`[]`,
		`{"type": ["object", "null"]}`,
		`{}`,
	}
	for i, s := range schemas {
		f.reg.Add(runtime.SourceWasm, badSchemaTool("bad"+string(rune('a'+i)), s))
	}
	f.reg.Add(runtime.SourceWasm, lateTool("late", "Arrives after the broken ones."))
	names := toolNames(t, cs)
	for i := range schemas {
		if slices.Contains(names, "bad"+string(rune('a'+i))) {
			t.Errorf("tool with schema %s is listed", schemas[i])
		}
	}
	if !slices.Contains(names, "late") || !slices.Contains(names, "read") {
		t.Errorf("a broken tool took other tools with it: %v", names)
	}
}

func TestStatelessHTTPListsTheCurrentTools(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	t.Cleanup(func() { f.srv.Close() })
	ts := f.serveHTTP(t, server.HTTPOptions{Stateless: true})
	cs, err := httpClient(t, ts.URL, protoLegacy, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.reg.Add(runtime.SourceWasm, lateTool("late", "Arrives late."))
	if res, out := call(t, cs, "late", map[string]any{"text": "x"}); res.IsError || out != "late: x" {
		t.Errorf("call the added tool statelessly: isError %v, %q", res.IsError, out)
	}
	f.reg.Remove(runtime.SourceWasm, "late")
	if names := toolNames(t, cs); slices.Contains(names, "late") {
		t.Errorf("stateless list still offers a removed tool: %v", strings.Join(names, " "))
	}
}

func TestAClosedServerNoLongerFollowsTheRegistry(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	cs := f.connect(t, protoLegacy, nil)
	f.srv.Close()
	f.srv.Close() // twice is harmless
	f.reg.Add(runtime.SourceWasm, lateTool("late", "Arrives after close."))
	if slices.Contains(toolNames(t, cs), "late") {
		t.Error("a closed server picked up a tool added after Close")
	}
}
