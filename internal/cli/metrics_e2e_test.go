package cli_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
)

// TestMCPOverHTTPExportsWasmPoolsAndPermissionDecisions scrapes /metrics
// of the built binary after a wasm tool's call: the module's instances
// (idle once the call is over) and the rule's allow are counted.
func TestMCPOverHTTPExportsWasmPoolsAndPermissionDecisions(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and a wasm guest")
	}
	p := probeProject(t, `{"permission": {"probe": "allow"}}`)
	cmd := p.Command("mcp", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	var base string
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "toolhost: serving MCP on "); ok {
			base = strings.TrimSpace(u)
			break
		}
	}
	if base == "" {
		t.Fatalf("the server never said where it serves: %v", sc.Err())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: base}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "probe", Arguments: map[string]any{"text": "pooled"}})
	if err != nil || res.IsError {
		t.Fatalf("probe: %v %+v", err, res)
	}
	resp, err := http.Get(base + "metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`toolhost_wasm_instances\{module="probe",state="idle"\} [1-9]`,
		`toolhost_wasm_instances\{module="probe",state="in_use"\} 0`,
		`toolhost_permission_decisions_total\{outcome="allowed_by_rule",permission="probe"\} 1`,
		`toolhost_tool_calls_total\{outcome="ok",source="wasm",tool="probe"\} 1`,
	} {
		if !regexp.MustCompile(want).Match(body) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		for _, l := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(l, "toolhost_") {
				t.Log(l)
			}
		}
	}
}
