package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
	"github.com/toolhost/toolhost/plugins/pkg"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

var guestBuilds sync.Map

// guestModule builds a test guest of plugins/wasm/testdata/guests once per run.
func guestModule(t testing.TB, name string) string {
	t.Helper()
	type build struct {
		once sync.Once
		path string
		err  error
	}
	v, _ := guestBuilds.LoadOrStore(name, &build{})
	b := v.(*build)
	b.once.Do(func() {
		// In the build cache, as e2e.GoBuild keeps it (a temporary folder
		// per run was left behind in the system's every time). The file is
		// shared: the tests copy it into their projects.
		b.path, b.err = e2e.GoBuild(filepath.Join("..", "plugins", "wasm", "testdata", "guests"),
			[]string{"GOOS=wasip1", "GOARCH=wasm", "GOWORK=off"}, "-buildmode=c-shared", "./"+name)
	})
	if b.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(b.err)
		}
		t.Skipf("skipped: cannot build test guest %s with the Go toolchain: %v", name, b.err)
	}
	return b.path
}

func copyInto(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mcpServer serves one MCP tool, shout, over Streamable HTTP.
func mcpServer(t *testing.T) string {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "shout", Description: "Shout."}, func(ctx context.Context, req *sdk.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestPluginsFromTheLockAndConfigDirectoriesJoinTheHost(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	ctx := context.Background()
	cacheDir := filepath.Join(env("XDG_CACHE_HOME"), "toolhost")
	guard, compat := guestModule(t, "guard"), guestModule(t, "compat")

	// A hook plugin discovered in the project's config directory.
	copyInto(t, guard, filepath.Join(project, ".toolhost", "plugin", "guard", "guard.wasm"))
	os.WriteFile(filepath.Join(project, ".toolhost", "plugin", "guard", wasm.ManifestFile),
		[]byte(`{"name":"guard","version":"1.0.0","abi":"toolhost-abi 1","modules":["guard.wasm"]}`), 0o644)
	// A describe/call package vendored in the project, added and locked.
	vendor := filepath.Join(project, "vendor", "acme")
	copyInto(t, compat, filepath.Join(vendor, "acme.wasm"))
	os.WriteFile(filepath.Join(vendor, wasm.ManifestFile),
		[]byte(`{"name":"acme","version":"0.1.0","abi":"toolhost-abi 1","modules":["acme.wasm"],"capabilities":{"config":{"user":{"description":"who"}}}}`), 0o644)
	cfg := fmt.Sprintf(`{"plugin": ["./vendor/acme", "./vendor/missing"], "wasm": {"acme": {"config": {"user": "ada"}}}, "mcp": {"remote": {"type": "remote", "url": %q}}}`, mcpServer(t))
	os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(cfg), 0o644)
	os.WriteFile(filepath.Join(project, "real.txt"), []byte("the real file\n"), 0o644)

	opts := Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: cacheDir}
	if _, err := lockPlugin(t, project, env, cacheDir).Add(ctx, "./vendor/acme", true); err != nil {
		t.Fatal(err)
	}
	// The vendored source may now go: the host runs what the lock pins,
	// from the cache.
	os.RemoveAll(vendor)

	h, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	var names []string
	for _, p := range h.Plugins {
		names = append(names, p.Manifest.Name)
	}
	if strings.Join(names, ",") != "acme,guard" {
		t.Fatalf("plugins = %v, want the locked package then the discovered one", names)
	}
	if len(h.LoadErrors) != 1 || !strings.Contains(h.LoadErrors[0].Reason, "toolhost plugin add ./vendor/missing") {
		t.Errorf("load errors = %v, want the unlocked reference reported", h.LoadErrors)
	}
	if src, _ := h.Registry.Source("acme_greet"); src != runtime.SourcePlugin {
		t.Errorf("acme_greet source = %q", src)
	}

	tests := []struct {
		name, tool, args string
		want             []string
		refused          bool
	}{
		{"a built-in tool's arguments are rewritten by the hook", "read", `{"filePath":"alias.txt"}`, []string{"the real file", "[checked by guard]"}, false},
		{"a built-in tool's call is refused by the hook", "read", `{"filePath":"forbidden.txt"}`, nil, true},
		{"a plugin's describe/call tool runs with its config, and hooks see it", "acme_whoami", `{}`, []string{"ada", "[checked by guard]"}, false},
		{"an MCP tool's arguments and output pass through the hooks", "remote_shout", `{"text":"ping"}`, []string{"PONG", "[checked by guard]"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := h.Registry.Call(ctx, runtime.Call{Tool: tt.tool, Args: json.RawMessage(tt.args)})
			if tt.refused {
				var re *wasm.RefusedError
				if !errors.As(err, &re) {
					t.Fatalf("err = %v, want refused by the guard plugin", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Output, w) {
					t.Errorf("output %q lacks %q", res.Output, w)
				}
			}
		})
	}

	t.Run("a locked package altered in the cache is refused at start", func(t *testing.T) {
		lock := lockPlugin(t, project, env, cacheDir)
		l, err := readLockEntry(lock.LockPath, "acme")
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(lock.Cache.Path(l.Digest), []byte("altered"), 0o644)
		h2, err := New(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer h2.Close(ctx)
		if h2.Registry.Has("acme_greet") {
			t.Error("the altered plugin was loaded")
		}
		found := false
		for _, e := range h2.LoadErrors {
			found = found || (strings.Contains(e.Reason, l.Digest) && strings.Contains(e.Reason, "digest mismatch"))
		}
		if !found {
			t.Errorf("load errors = %v, want the mismatch with both digests", h2.LoadErrors)
		}
	})
}

func mustLoadConfig(t *testing.T, project string, env func(string) string) *config.Config {
	t.Helper()
	loaded, err := config.Load(config.LoadOptions{Directory: project, Worktree: project, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return loaded.Config
}

// lockPlugin is the manager `toolhost plugin add` uses on project, as the
// project's config sees it.
func lockPlugin(t *testing.T, project string, env func(string) string, cacheDir string) *pkg.Manager {
	return pkg.NewManager(mustLoadConfig(t, project, env), project, cacheDir, nil)
}

func readLockEntry(path, name string) (pkg.Locked, error) {
	l, err := pkg.ReadLock(path)
	if err != nil {
		return pkg.Locked{}, err
	}
	e, ok := l.ByName(name)
	if !ok {
		return pkg.Locked{}, fmt.Errorf("%s not locked", name)
	}
	return *e, nil
}

// TestStartHealsATamperedPluginModuleAndSaysSo replaces a locked plugin's
// unpacked module in the cache between two starts: the second start runs
// the module from the verified archive again and logs one warning naming
// the file it restored.
func TestStartHealsATamperedPluginModuleAndSaysSo(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	ctx := context.Background()
	cacheDir := filepath.Join(env("XDG_CACHE_HOME"), "toolhost")
	compat, guard := guestModule(t, "compat"), guestModule(t, "guard")
	vendor := filepath.Join(project, "vendor", "acme")
	copyInto(t, compat, filepath.Join(vendor, "acme.wasm"))
	os.WriteFile(filepath.Join(vendor, wasm.ManifestFile),
		[]byte(`{"name":"acme","version":"0.1.0","abi":"toolhost-abi 1","modules":["acme.wasm"]}`), 0o644)
	os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(`{"plugin": ["./vendor/acme"]}`), 0o644)
	opts := Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: cacheDir}
	if _, err := lockPlugin(t, project, env, cacheDir).Add(ctx, "./vendor/acme", true); err != nil {
		t.Fatal(err)
	}
	h, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	h.Close(ctx)
	unpacked, _ := filepath.Glob(filepath.Join(cacheDir, "plugins", "unpacked", "*", "acme.wasm"))
	if len(unpacked) != 1 {
		t.Fatalf("unpacked modules = %v, want one", unpacked)
	}
	copyInto(t, guard, unpacked[0])

	var logs warnings
	opts.Logger = slog.New(&logs)
	h, err = New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if src, _ := h.Registry.Source("acme_greet"); src != runtime.SourcePlugin {
		t.Errorf("acme_greet source = %q after healing, want the plugin", src)
	}
	got := logs.matching("acme.wasm")
	if len(got) != 1 {
		t.Fatalf("warnings naming acme.wasm = %q, want exactly one", got)
	}
	b, _ := os.ReadFile(unpacked[0])
	if want, _ := os.ReadFile(compat); string(b) != string(want) {
		t.Error("the tampered module was not restored from the archive")
	}
}

// warnings is a slog handler keeping every warning's text.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	w.mu.Lock()
	w.msgs = append(w.msgs, b.String())
	w.mu.Unlock()
	return nil
}
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }
func (w *warnings) matching(s string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, m := range w.msgs {
		if strings.Contains(m, s) {
			out = append(out, m)
		}
	}
	return out
}

// A plugin whose config fails its manifest is not loaded at start: the
// load error names the key and the fix, and never a secret's value.
func TestAPluginWhoseConfigFailsIsNotLoadedAndTheLoadErrorNamesTheKey(t *testing.T) {
	t.Parallel()
	compat := guestModule(t, "compat")
	manifest := `{"name":"acme","version":"0.1.0","abi":"toolhost-abi 1","modules":["acme.wasm"],
 "capabilities":{"config":{"user":{"required":true},"token":{"secret":true}}},
 "config_schema":{"type":"object","properties":{"retries":{"type":"integer"},"token":{"type":"string","maxLength":3}}}}`
	tests := []struct {
		name    string
		config  string // the "acme" config values
		want    []string
		loads   bool
		neverIn string
	}{
		{"a missing required value", `{}`, []string{"wasm.acme.config.user", `set "user"`}, false, ""},
		{"a value of the wrong type", `{"user":"ann","retries":"many"}`, []string{"wasm.acme.config.retries", "want integer"}, false, ""},
		{"a secret that fails the schema is not shown", `{"user":"ann","token":"TOPSECRET"}`, []string{"wasm.acme.config.token", "not shown"}, false, "TOPSECRET"},
		{"a valid config", `{"user":"ann","retries":"2","token":"abc"}`, nil, true, ""},
	}
	for _, tt := range tests {
		for _, packaged := range []bool{false, true} {
			name := tt.name + ", in a plugin folder"
			if packaged {
				name = tt.name + ", as a locked package"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				project, env := newProject(t)
				ctx := context.Background()
				opts := Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: filepath.Join(env("XDG_CACHE_HOME"), "toolhost")}
				dir := filepath.Join(project, ".toolhost", "plugin", "acme")
				cfg := fmt.Sprintf(`{"wasm": {"acme": {"config": %s}}}`, tt.config)
				if packaged {
					dir = filepath.Join(project, "vendor", "acme")
					cfg = fmt.Sprintf(`{"plugin": ["./vendor/acme"], "wasm": {"acme": {"config": %s}}}`, tt.config)
				}
				copyInto(t, compat, filepath.Join(dir, "acme.wasm"))
				os.WriteFile(filepath.Join(dir, wasm.ManifestFile), []byte(manifest), 0o644)
				os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(cfg), 0o644)
				if packaged {
					if _, err := lockPlugin(t, project, env, opts.CacheDir).Add(ctx, "./vendor/acme", true); err != nil {
						t.Fatal(err)
					}
				}
				h, err := New(ctx, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer h.Close(ctx)
				if got := h.Registry.Has("acme_whoami"); got != tt.loads {
					t.Fatalf("acme_whoami offered: %v, want %v (load errors %v)", got, tt.loads, h.LoadErrors)
				}
				all := fmt.Sprint(h.LoadErrors)
				for _, w := range tt.want {
					if !strings.Contains(all, w) {
						t.Errorf("load errors lack %q: %s", w, all)
					}
				}
				if tt.loads && len(h.LoadErrors) > 0 {
					t.Errorf("load errors for a valid config: %s", all)
				}
				if tt.neverIn != "" && strings.Contains(all, tt.neverIn) {
					t.Errorf("load errors show the secret: %s", all)
				}
			})
		}
	}
}
