package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/mcp/client"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// selfServer is a config entry that runs the built binary as an MCP server
// over the project p, isolated from the user's configuration.
func selfServer(p *project, timeoutMS int) config.MCPServer {
	env := map[string]string{}
	for _, kv := range p.env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return config.MCPServer{Type: "local", Command: []string{p.Bin, "-C", p.dir, "mcp"}, Environment: env, Timeout: timeoutMS}
}

// registryWith returns a registry holding the manager's tools.
func registryWith(t *testing.T, m *client.Manager, permissionJSON string) *runtime.Registry {
	t.Helper()
	var cfg config.Config
	if permissionJSON != "" {
		if err := json.Unmarshal([]byte(`{"permission": `+permissionJSON+`}`), &cfg); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := runtime.NewRegistry(runtime.Options{Config: &cfg, Directory: t.TempDir(), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceMCP, m.Tools()...)
	return reg
}

func TestManagerOffersAServersToolsAsServerUnderscoreTool(t *testing.T) {
	t.Parallel()
	inner := newProject(t, "")
	inner.write("inside.txt", "inside the served project\n")
	m := client.New(map[string]config.MCPServer{"self": selfServer(inner, 30000)}, client.Options{})
	t.Cleanup(func() { m.Close() })
	m.Start(context.Background())
	st := m.Status()
	if len(st) != 1 || st[0].State != client.StateConnected || st[0].Tools < 8 {
		t.Fatalf("status %+v", st)
	}
	reg := registryWith(t, m, "")
	if !reg.Has("self_read") || !reg.Has("self_bash") {
		t.Fatalf("registry ids %v", reg.IDs())
	}
	if src, _ := reg.Source("self_read"); src != runtime.SourceMCP {
		t.Errorf("source %s", src)
	}
	tools, err := reg.Tools(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range tools {
		if ti.ID == "self_read" && !strings.Contains(string(ti.Parameters), "filePath") {
			t.Errorf("self_read schema: %s", ti.Parameters)
		}
	}

	var mu sync.Mutex
	var updates []map[string]any
	tests := []struct {
		name    string
		tool    string
		args    string
		wantErr string
		wantOut string
	}{
		{"a call returns the server's text", "self_read", `{"filePath":"inside.txt"}`, "", "inside the served project"},
		{"an isError result is a tool error with its message", "self_read", `{"filePath":"missing.txt"}`, "missing.txt", ""},
		{"the registry validates arguments against the server's schema", "self_read", `{}`, "filePath", ""},
		{"progress from the server reaches OnMetadata", "self_bash", `{"command":"echo hi","description":"Say hi"}`, "", "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := reg.Call(context.Background(), runtime.Call{Tool: tt.tool, Args: json.RawMessage(tt.args), OnMetadata: func(title string, meta map[string]any) {
				mu.Lock()
				updates = append(updates, meta)
				mu.Unlock()
			}})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(res.Output, tt.wantOut) {
				t.Errorf("output %q, err %v; want %q", res.Output, err, tt.wantOut)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) == 0 {
		t.Errorf("no progress reached OnMetadata")
	}
}

func TestAServerThatDiesIsRestartedOnTheNextCall(t *testing.T) {
	t.Parallel()
	inner := newProject(t, "")
	inner.write("alive.txt", "alive again\n")
	m := client.New(map[string]config.MCPServer{"self": selfServer(inner, 30000)}, client.Options{})
	t.Cleanup(func() { m.Close() })
	m.Start(context.Background())
	reg := registryWith(t, m, "")
	// The served toolhost runs bash as its child, or as its sandbox
	// zygote's: the command names its parent, and the test kills the
	// server (that parent, or the zygote's) in the middle of the call
	// (bash itself may not: the sandbox keeps its signals to its own
	// processes).
	pidFile := filepath.Join(inner.dir, "server.pid")
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					pid = serverOf(pid)
					if proc, err := os.FindProcess(pid); err == nil {
						proc.Kill()
					}
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	_, err := reg.Call(context.Background(), runtime.Call{Tool: "self_bash", Args: json.RawMessage(`{"command":"echo $PPID > server.pid; sleep 10","description":"Name the server"}`)})
	if err == nil || !strings.Contains(err.Error(), "restarted on the next call") {
		t.Fatalf("call in flight when the server died: %v; want a clear error", err)
	}
	if st := m.Status()[0]; st.State != client.StateExited {
		t.Errorf("state after death: %+v", st)
	}
	res, err := reg.Call(context.Background(), runtime.Call{Tool: "self_read", Args: json.RawMessage(`{"filePath":"alive.txt"}`)})
	if err != nil || !strings.Contains(res.Output, "alive again") {
		t.Fatalf("call after death: %v %q", err, res.Output)
	}
	if st := m.Status()[0]; st.State != client.StateConnected {
		t.Errorf("state after restart: %+v", st)
	}
}

func TestFailingServersAreReportedAndSkipped(t *testing.T) {
	t.Parallel()
	inner := newProject(t, "")
	off := false
	m := client.New(map[string]config.MCPServer{
		"good":    selfServer(inner, 30000),
		"missing": {Type: "local", Command: []string{filepath.Join(t.TempDir(), "no-such-server")}},
		"silent":  {Type: "local", Command: []string{"sleep", "30"}, Timeout: 300},
		"nocmd":   {Type: "local"},
		"off":     {Type: "local", Command: []string{"sleep", "30"}, Enabled: &off},
	}, client.Options{})
	t.Cleanup(func() { m.Close() })
	m.Start(context.Background())
	want := map[string]struct{ state, err string }{
		"good":    {client.StateConnected, ""},
		"missing": {client.StateFailed, "no-such-server"},
		"silent":  {client.StateFailed, "timeout 300ms"},
		"nocmd":   {client.StateFailed, `without "command"`},
		"off":     {client.StateDisabled, ""},
	}
	for _, st := range m.Status() {
		w := want[st.Name]
		if st.State != w.state || !strings.Contains(st.Error, w.err) {
			t.Errorf("%s: state %s error %q; want %s with %q", st.Name, st.State, st.Error, w.state, w.err)
		}
	}
	for _, tool := range m.Tools() {
		if !strings.HasPrefix(tool.ID(), "good_") {
			t.Errorf("tool %s from a server that did not start", tool.ID())
		}
	}
}

func TestMCPToolsAskPermissionUnderTheirID(t *testing.T) {
	t.Parallel()
	inner := newProject(t, "")
	inner.write("f.txt", "file\n")
	m := client.New(map[string]config.MCPServer{"self": selfServer(inner, 30000)}, client.Options{})
	t.Cleanup(func() { m.Close() })
	m.Start(context.Background())
	tests := []struct {
		name  string
		rules string
		kind  permission.Outcome
	}{
		{"a wildcard over the server denies its tools", `{"self_*": "deny"}`, "denied"},
		{"ask without anyone to ask is refused", `{"self_read": "ask"}`, "denied"},
		{"the default allows", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := registryWith(t, m, tt.rules)
			_, err := reg.Call(context.Background(), runtime.Call{Tool: "self_read", Args: json.RawMessage(`{"filePath":"f.txt"}`)})
			if got := permission.Kind(err); got != tt.kind {
				t.Errorf("permission kind %q (err %v), want %q", got, err, tt.kind)
			}
		})
	}
}

func TestToolIDIsSanitisedAndBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	tests := []struct {
		server, tool, want string
	}{
		{"everything", "echo", "everything_echo"},
		{"my.server", "read file", "my_server_read_file"},
		{"fs", "read-text", "fs_read-text"},
	}
	for _, tt := range tests {
		if got := client.ToolID(tt.server, tt.tool); got != tt.want {
			t.Errorf("ToolID(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
	a, b := client.ToolID("s", long+"a"), client.ToolID("s", long+"b")
	if len(a) != 64 || len(b) != 64 || a == b {
		t.Errorf("long ids %q %q: want 64 characters and distinct", a, b)
	}
}

func TestToolhostCallsAndListsConfiguredServers(t *testing.T) {
	t.Parallel()
	inner := newProject(t, "")
	inner.write("remote.txt", "served by the inner toolhost\n")
	outerCfg, _ := json.Marshal(map[string]any{"mcp": map[string]any{
		"inner":  selfServer(inner, 30000),
		"broken": config.MCPServer{Type: "local", Command: []string{"/nonexistent/server"}},
	}})
	outer := newProject(t, string(outerCfg))

	out, stderr, code := outer.run("call", "inner_read", `{"filePath":"remote.txt"}`)
	if code != 0 || !strings.Contains(out, "served by the inner toolhost") {
		t.Errorf("toolhost call inner_read: exit %d, %q, stderr %s", code, out, stderr)
	}
	out, stderr, code = outer.run("tools")
	if code != 0 || !strings.Contains(out, "inner_read") || !strings.Contains(stderr, "broken") {
		t.Errorf("toolhost tools: exit %d\n%s\nstderr %s", code, out, stderr)
	}
	out, stderr, code = outer.run("mcp", "list", "--json")
	var st []client.ServerStatus
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || len(st) != 2 {
		t.Fatalf("toolhost mcp list --json: exit %d, %v, %q, stderr %s", code, err, out, stderr)
	}
	if st[0].Name != "broken" || st[0].State != client.StateFailed || st[1].Name != "inner" || st[1].State != client.StateConnected || st[1].Tools < 8 {
		t.Errorf("status %+v", st)
	}
	out, _, _ = outer.run("mcp", "list")
	if !strings.Contains(out, "NAME") || !strings.Contains(out, "connected") {
		t.Errorf("toolhost mcp list:\n%s", out)
	}
}

// zygoteArg is sandbox.ZygoteArg, which only Linux builds define.
const zygoteArg = "__toolhost_sandbox_zygote__"

// serverOf is pid, or its parent when pid is a sandbox zygote (which
// starts the served toolhost's commands on Linux with Landlock).
func serverOf(pid int) int {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte(zygoteArg)) {
		return pid
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return pid
	}
	// pid (comm) state ppid ...: comm may hold spaces, so count from its end.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 2 {
		return pid
	}
	if ppid, err := strconv.Atoi(fields[1]); err == nil {
		return ppid
	}
	return pid
}
