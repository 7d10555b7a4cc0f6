package server_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
)

// conformanceProject is a fresh copy of examples/conformance with its wasm
// module built into .toolhost/tool/test.wasm, as .ci/mcp-conformance
// prepares it for the official suite.
func conformanceProject(t *testing.T) *project {
	t.Helper()
	p := newProject(t, "")
	src := filepath.Join("..", "..", "examples", "conformance")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() && (rel == "src" || rel == filepath.Join(".toolhost", "tool")) {
			return fs.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		p.Write(rel, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// From go run's cache: linked once per source state, not once per run.
	module, err := e2e.GoBuild(filepath.Join(src, "src"), []string{"GOOS=wasip1", "GOARCH=wasm"}, "-buildmode=c-shared", ".")
	if err != nil {
		t.Fatalf("build the conformance module: %v", err)
	}
	if err := e2e.CopyFile(module, filepath.Join(p.dir, ".toolhost", "tool", "test.wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTheConformanceExampleServesEveryFixture runs examples/conformance
// through the built binary, as the MCP conformance suite does in CI: each
// test_* tool, prompt and resource answers as the suite expects.
func TestTheConformanceExampleServesEveryFixture(t *testing.T) {
	t.Parallel()
	p := conformanceProject(t)
	logs := make(chan string, 10)
	cs := stdioClient(t, p, "2025-11-25", &sdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			return &sdk.CreateMessageResult{Role: "assistant", Model: "m", Content: &sdk.TextContent{Text: "sampled " + r.Params.Messages[0].Content.(*sdk.TextContent).Text}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			schema, _ := json.Marshal(r.Params.RequestedSchema)
			return &sdk.ElicitResult{Action: "decline", Meta: sdk.Meta{"schema": string(schema)}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) { logs <- r.Params.Data.(string) },
	})
	ctx := context.Background()
	if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	tools := []struct {
		name    string
		args    map[string]any
		want    string // in the result's JSON
		isError bool
	}{
		{"test_simple_text", nil, `"text":"This is a simple text response for testing."`, false},
		{"test_image_content", nil, `"type":"image"`, false},
		{"test_audio_content", nil, `"mimeType":"audio/wav"`, false},
		{"test_embedded_resource", nil, `"text":"This is an embedded resource content."`, false},
		{"test_multiple_content_types", nil, `"text":"{\"test\":\"data\",\"value\":123}"`, false},
		{"test_tool_with_logging", nil, `Logged three messages.`, false},
		{"test_error_handling", nil, `This tool intentionally returns an error for testing`, true},
		{"test_tool_with_progress", nil, `Progress reported.`, false},
		{"test_sampling", map[string]any{"prompt": "hello"}, `LLM response: sampled hello`, false},
		{"test_elicitation", map[string]any{"message": "who?"}, `User response: action=decline`, false},
		{"test_elicitation_sep1034_defaults", nil, `action=decline`, false},
		{"test_elicitation_sep1330_enums", nil, `action=decline`, false},
	}
	for _, tt := range tools {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.name, Arguments: tt.args})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		b, _ := json.Marshal(res)
		if res.IsError != tt.isError || !strings.Contains(string(b), tt.want) {
			t.Errorf("%s: %s, want isError %v and %s", tt.name, b, tt.isError, tt.want)
		}
	}
	for _, want := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		select {
		case got := <-logs:
			if got != want {
				t.Errorf("log line %q, want %q", got, want)
			}
		case <-time.After(wait):
			t.Fatalf("no log line %q", want)
		}
	}
	for name, args := range map[string]map[string]string{
		"test_simple_prompt":                 nil,
		"test_prompt_with_arguments":         {"arg1": "a1", "arg2": "a2"},
		"test_prompt_with_embedded_resource": {"resourceUri": "test://example-resource"},
		"test_prompt_with_image":             nil,
	} {
		if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args}); err != nil {
			t.Errorf("prompt %s: %v", name, err)
		}
	}
	for _, uri := range []string{"test://static-text", "test://static-binary", "test://template/123/data", "test://watched-resource"} {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err != nil {
			t.Errorf("resource %s: %v", uri, err)
		}
	}
}
