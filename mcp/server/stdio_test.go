package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
)

// stdioClient starts `toolhost mcp` in the project and connects to it.
func stdioClient(t *testing.T, p *project, proto string, opts *sdk.ClientOptions, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := p.command(append([]string{"mcp"}, args...)...)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, opts).
		Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: proto})
	if err != nil {
		t.Fatalf("connect to toolhost mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestStdioServerOfTheBuiltBinary(t *testing.T) {
	t.Parallel()
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			p := newProject(t, `{"permission": {"read": {"*secret*": "ask"}}}`)
			p.write("notes.txt", "notes of the project\n")
			p.write("secret.txt", "the secret\n")

			e := &elicitor{action: "accept", content: map[string]any{"decision": "once"}}
			progress := make(chan *sdk.ProgressNotificationParams, 64)
			cs := stdioClient(t, p, proto, &sdk.ClientOptions{
				ElicitationHandler: e.handle,
				ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
					progress <- r.Params
				},
			})
			var names []string
			for tool, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			if !strings.Contains(strings.Join(names, " "), "read") || len(names) < 8 {
				t.Errorf("tools/list over stdio: %v", names)
			}

			if res, out := call(t, cs, "read", map[string]any{"filePath": "notes.txt"}); res.IsError || !strings.Contains(out, "notes of the project") {
				t.Errorf("read notes.txt: isError %v, %q", res.IsError, out)
			}
			if res, out := call(t, cs, "read", map[string]any{}); !res.IsError || !strings.Contains(out, "filePath") {
				t.Errorf("read without filePath: isError %v, %q", res.IsError, out)
			}
			if res, out := call(t, cs, "read", map[string]any{"filePath": "secret.txt"}); res.IsError || !strings.Contains(out, "the secret") {
				t.Errorf("read secret.txt answered once: isError %v, %q", res.IsError, out)
			}
			if e.count() != 1 || !strings.Contains(e.asked[0].Message, "secret.txt") {
				t.Errorf("elicitations: %d, first %+v", e.count(), e.asked)
			}

			params := &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo one; echo two", "description": "Print two lines"}}
			params.SetProgressToken(7)
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError || !strings.Contains(text(res), "two") {
				t.Fatalf("bash: %v %q", err, text(res))
			}
			select {
			case p := <-progress:
				if p.ProgressToken != float64(7) && p.ProgressToken != int64(7) && p.ProgressToken != 7 {
					t.Errorf("progress token %v (%T), want 7", p.ProgressToken, p.ProgressToken)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("no progress notification for a bash call with a progress token")
			}
		})
	}
}

func TestStdioServerWithoutElicitationRefusesAsksWithTheRuleToAdd(t *testing.T) {
	t.Parallel()
	p := newProject(t, `{"permission": {"read": {"*secret*": "ask"}}}`)
	p.write("secret.txt", "the secret\n")
	cs := stdioClient(t, p, protoLegacy, nil)
	res, out := call(t, cs, "read", map[string]any{"filePath": "secret.txt"})
	if !res.IsError || !strings.Contains(out, `"permission": {"read"`) || strings.Contains(out, "the secret") {
		t.Errorf("isError %v, %q; want a refusal naming a rule", res.IsError, out)
	}
}

func TestStdioServerServesTheChosenAgent(t *testing.T) {
	t.Parallel()
	p := newProject(t, "")
	cs := stdioClient(t, p, protoLegacy, nil, "--agent", "plan")
	res, out := call(t, cs, "write", map[string]any{"filePath": "x.txt", "content": "x"})
	// The plan agent may not edit: the tool is either not offered or denied.
	if !res.IsError {
		t.Errorf("plan agent wrote a file: %q", out)
	}
}
