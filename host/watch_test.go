package host

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// watchLimit is how long a test waits for a watched change to take
// effect before it fails. It is no latency target — a shared CI machine
// running every package's tests at once can stall a reload for seconds —
// only the point where "late" becomes "never".
const watchLimit = 45 * time.Second

// warmCache loads module once through a wasm host using cacheDir, so a
// later load of the same bytes reads its description and compiled code
// from the cache: the deadlines below then measure the watch, not the
// compiler.
func warmCache(t *testing.T, cacheDir, module string) {
	t.Helper()
	dir := t.TempDir()
	// The build cache names a module after its package, without .wasm.
	copyInto(t, module, filepath.Join(dir, "tool", strings.TrimSuffix(filepath.Base(module), ".wasm")+".wasm"))
	wh := wasm.NewEngine(wasm.EngineOptions{CacheDir: filepath.Join(cacheDir, "wasm")})
	defer wh.Close(context.Background())
	tools, errs := wh.Discover(context.Background(), []string{dir})
	if len(errs) > 0 || len(tools) == 0 {
		t.Fatalf("warm the cache: %d tools, errors %v", len(tools), errs)
	}
	for _, tl := range tools {
		if _, err := tl.Init(context.Background(), runtime.InitContext{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAModuleDroppedIntoARunningMCPServersToolFolderComesAndGoes(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	cacheDir := testCache(t)
	echo := guestModule(t, "echo")
	warmCache(t, cacheDir, echo)
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: cacheDir, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(ctx) })
	srv, err := server.New(ctx, h.Registry, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	changed := make(chan struct{}, 1)
	ct := pipeTransport(t, srv)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	listed := func() []string {
		var names []string
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
		}
		return names
	}
	// A watching host offers a change (within 2 s, which
	// BenchmarkPluginFolderReload measures; the limit here only catches a
	// change that never comes, on a machine that may be busy).
	waitChanged := func(after string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(watchLimit):
			t.Fatalf("no notifications/tools/list_changed within %v after %s", watchLimit, after)
		}
	}
	if slices.Contains(listed(), "echo") {
		t.Fatal("echo listed before its module was dropped in")
	}

	// The folder does not exist yet: a user creates it while the server runs.
	toolDir := filepath.Join(project, ".toolhost", "tool")
	tmp := filepath.Join(project, ".toolhost", "echo.wasm.part")
	copyInto(t, echo, tmp)
	if err := os.MkdirAll(toolDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(toolDir, "echo.wasm")); err != nil {
		t.Fatal(err)
	}
	waitChanged("echo.wasm was dropped into .toolhost/tool/")
	if !slices.Contains(listed(), "echo") {
		t.Fatalf("echo not listed after list_changed: %v", listed())
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil || res.IsError {
		t.Fatalf("call echo: %v %+v", err, res)
	}
	if out := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(out, `"text":"hello"`) {
		t.Errorf("echo answered %q", out)
	}

	if err := os.Remove(filepath.Join(toolDir, "echo.wasm")); err != nil {
		t.Fatal(err)
	}
	waitChanged("echo.wasm was removed")
	if slices.Contains(listed(), "echo") {
		t.Error("echo still listed after its module was removed")
	}
	if h.Registry.Has("echo") {
		t.Error("echo still in the registry after its module was removed")
	}
}

func TestCloseIsSafeTwiceAndStopsTheWatcher(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t), Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := h.Close(ctx); err != nil {
		t.Errorf("second close: %v", err)
	}
	// The watcher is gone: a module dropped in now is not picked up. Its
	// goroutine was waited for by Close, so nothing races with this.
	copyInto(t, guestModule(t, "echo"), filepath.Join(project, ".toolhost", "tool", "echo.wasm"))
	if tools, _ := h.engine.Engine().Discover(ctx, h.Dirs); len(tools) != 0 {
		t.Errorf("the closed host's wasm loader still loads modules: %d tools", len(tools))
	}
}

func TestNewReturnsNoHostWhenALaterStepFails(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	// An agent whose mode is unknown fails NewRegistry, after the store
	// was opened.
	if err := os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(`{"default_agent": "nobody", "agent": {"x": {"mode": "sideways"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t)})
	if err == nil {
		h.Close(context.Background())
		t.Fatal("an agent with an unknown mode was accepted")
	}
	if !strings.Contains(err.Error(), "sideways") {
		t.Errorf("error %q does not name the bad mode", err)
	}
	if h != nil {
		t.Errorf("New returned a host with its error %v", err)
	}
}

func TestWatchedDirectoriesIncludeProjectConfigDirectoriesNotYetCreated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		dirs                []string
		worktree, directory string
		want                []string
	}{
		{"a project without .toolhost gets it after the global directory",
			[]string{"/home/u/.config/toolhost", "/home/u/.toolhost"}, "/p", "/p",
			[]string{"/home/u/.config/toolhost", "/p/.toolhost", "/home/u/.toolhost"}},
		{"an existing project directory is kept once",
			[]string{"/g", "/p/.toolhost", "/h/.toolhost"}, "/p", "/p",
			[]string{"/g", "/p/.toolhost", "/h/.toolhost"}},
		{"a subdirectory's .toolhost ranks above the root's",
			[]string{"/g", "/p/.toolhost"}, "/p", "/p/sub",
			[]string{"/g", "/p/.toolhost", "/p/sub/.toolhost"}},
		{"a sibling whose name starts like the worktree is not the project",
			[]string{"/g", "/p2/.toolhost"}, "/p", "/p",
			[]string{"/g", "/p/.toolhost", "/p2/.toolhost"}},
		{"no other directories",
			nil, "/p", "/p",
			[]string{"/p/.toolhost"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := config.WatchDirs(tt.dirs, tt.worktree, tt.directory); !slices.Equal(got, tt.want) {
				t.Errorf("watchDirs = %v, want %v", got, tt.want)
			}
		})
	}
}

// warmPlugin loads the plugin in dir once through an engine using
// cacheDir, so the watching host finds its compiled code and what it
// provides in the cache.
func warmPlugin(t testing.TB, cacheDir, dir string) {
	t.Helper()
	wh := wasm.NewEngine(wasm.EngineOptions{CacheDir: filepath.Join(cacheDir, "wasm")})
	defer wh.Close(context.Background())
	src, err := wasm.DirBundle(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := wh.LoadPlugin(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range p.Tools {
		if _, err := tl.Init(context.Background(), runtime.InitContext{}); err != nil {
			t.Fatal(err)
		}
	}
}

// The promise for plugin folders: a plugin dropped into a running
// host's .toolhost/plugin/ takes effect within 2 s — its hooks on every
// call, its tools listed — and is gone again after its folder is removed.
func TestAPluginDroppedIntoARunningHostsPluginFolderComesAndGoes(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	cacheDir := testCache(t)
	staged := filepath.Join(t.TempDir(), "guard")
	copyInto(t, guestModule(t, "guard"), filepath.Join(staged, "guard.wasm"))
	copyInto(t, guestModule(t, "echo"), filepath.Join(staged, "echo.wasm"))
	if err := os.WriteFile(filepath.Join(staged, wasm.ManifestFile),
		[]byte(`{"name":"guard","version":"1.0.0","abi":"toolhost-abi 1","modules":["guard.wasm","echo.wasm"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	warmPlugin(t, cacheDir, staged)
	if err := os.WriteFile(filepath.Join(project, "real.txt"), []byte("the real file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: cacheDir, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(ctx) })
	changed := make(chan struct{}, 1)
	cancel := h.Registry.Subscribe(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer cancel()
	read := func() string {
		t.Helper()
		res, err := h.Call(ctx, runtime.Call{Tool: "read", Args: []byte(`{"filePath":"real.txt"}`), SessionID: "s"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Output
	}
	// waitFor polls until cond holds, up to limit; a registry change
	// wakes it early.
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		deadline := time.After(limit)
		for !cond() {
			select {
			case <-changed:
			case <-time.After(50 * time.Millisecond):
			case <-deadline:
				t.Fatalf("not within %v: %s", limit, what)
			}
		}
	}
	if strings.Contains(read(), "[checked by guard]") || h.Registry.Has("echo") {
		t.Fatal("the plugin acts before it was dropped in")
	}

	pluginDir := filepath.Join(project, ".toolhost", "plugin")
	if err := os.MkdirAll(pluginDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(staged, filepath.Join(pluginDir, "guard")); err != nil {
		t.Fatal(err)
	}
	// The plugin comes in (within 2 s: BenchmarkPluginFolderReload
	// measures that; the limits here only catch a change that never
	// comes). Its hook's first run then instantiates the module.
	waitFor("the dropped plugin's tool is listed", watchLimit, func() bool { return h.Registry.Has("echo") })
	waitFor("the dropped plugin's hook runs on a built-in call", watchLimit, func() bool { return strings.Contains(read(), "[checked by guard]") })
	if src, _ := h.Registry.Source("echo"); src != runtime.SourcePlugin {
		t.Errorf("echo comes from %q, want the plugin", src)
	}
	res, err := h.Call(ctx, runtime.Call{Tool: "echo", Args: []byte(`{"text":"ping"}`), SessionID: "s"})
	if err != nil || !strings.Contains(res.Output, `"text":"pong"`) {
		t.Errorf("echo through the plugin's own hook: %q, %v", res.Output, err)
	}

	if err := os.RemoveAll(filepath.Join(pluginDir, "guard")); err != nil {
		t.Fatal(err)
	}
	waitFor("the removed plugin's tool is gone", watchLimit, func() bool { return !h.Registry.Has("echo") })
	if out := read(); strings.Contains(out, "[checked by guard]") {
		t.Errorf("the removed plugin's hook still runs: %q", out)
	}
}

// pipeTransport serves srv over a pair of pipes, as ServeStdio serves stdin and
// stdout, and returns the client's end (Server.Connect is not public: the
// SDK's types are toolhost's internal copy's).
func pipeTransport(t testing.TB, srv *server.Server) sdk.Transport {
	t.Helper()
	cr, sw := io.Pipe() // server to client
	sr, cw := io.Pipe() // client to server
	go func() {
		srv.ServeStream(context.Background(), sr, sw)
		sw.Close()
	}()
	t.Cleanup(func() { cw.Close() })
	return &sdk.IOTransport{Reader: cr, Writer: cw}
}
