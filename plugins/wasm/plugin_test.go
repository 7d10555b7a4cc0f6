package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// pluginDir writes a plugin directory: a manifest and the given modules
// (file name → built module path).
func pluginDir(t testing.TB, manifest string, modules map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, src := range modules {
		copyFile(t, src, filepath.Join(dir, name))
	}
	return dir
}

// logSink records log lines and lets a test wait for one.
type logSink struct {
	mu    sync.Mutex
	lines []string
	added chan struct{}
}

func newLogSink() *logSink { return &logSink{added: make(chan struct{}, 1000)} }

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *logSink) WithGroup(string) slog.Handler            { return s }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	s.mu.Lock()
	s.lines = append(s.lines, b.String())
	s.mu.Unlock()
	select {
	case s.added <- struct{}{}:
	default:
	}
	return nil
}

func (s *logSink) contains(sub string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// waitFor waits for a log line containing sub; events are asynchronous.
// The generous limit only stops a broken test from hanging.
func (s *logSink) waitFor(t testing.TB, sub string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for !s.contains(sub) {
		select {
		case <-s.added:
		case <-deadline:
			t.Fatalf("no log line containing %q; got:\n%s", sub, strings.Join(s.lines, "\n"))
		}
	}
}

func pluginRegistry(t testing.TB, cfg *config.Config, dir string, log *slog.Logger) *runtime.Registry {
	t.Helper()
	if cfg == nil {
		cfg = &config.Config{}
	}
	r, err := runtime.NewRegistry(runtime.Options{Config: cfg, DataDir: t.TempDir(), Directory: dir, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const guardManifest = `{"name": "guard", "version": "1.0.0", "abi": "toolhost-abi 1", "modules": ["guard.wasm"]}`

func TestPluginHooksChangeArgumentsAndOutputRefuseCallsAndSeeEveryTool(t *testing.T) {
	t.Parallel()
	sink := newLogSink()
	log := slog.New(sink)
	h := NewEngine(EngineOptions{CacheDir: sharedCache, Logger: log})
	t.Cleanup(func() { h.Close(context.Background()) })

	src, err := DirBundle(pluginDir(t, guardManifest, map[string]string{"guard.wasm": guest(t, "guard")}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.LoadPlugin(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if p.Hooks == nil || len(p.Tools) != 0 {
		t.Fatalf("hooks = %v, tools = %v; want hooks only", p.Hooks, p.Tools)
	}
	if got := strings.Join(p.Hooks.Exports(), ","); got != "tool_execute_before,tool_execute_after,tool_definition,event" {
		t.Errorf("exports = %s", got)
	}

	dir := t.TempDir()
	reg := pluginRegistry(t, nil, dir, log)
	native := runtime.Define("shout", "Shout the text.", func(ctx context.Context, a struct {
		Text string `json:"text"`
	}, tc *runtime.Context) (runtime.Result, error) {
		return runtime.Result{Title: "shouted", Output: strings.ToUpper(a.Text)}, nil
	})
	reg.Add(runtime.SourceBuiltin, native)
	wasm := discover(t, h, configDir(t, map[string]string{"echo.wasm": guest(t, "echo")}))
	reg.Add(runtime.SourceWasm, wasm["echo"])
	reg.AddHook(p.Hooks)

	tests := []struct {
		name, tool, args string
		want             []string
		refused          bool
	}{
		{"a native tool's arguments are rewritten and its output annotated", "shout", `{"text":"ping"}`, []string{"PONG", "[checked by guard]"}, false},
		{"a wasm tool's arguments are rewritten and its output annotated", "echo", `{"text":"ping"}`, []string{`"text":"pong"`, "[checked by guard]"}, false},
		{"a native tool's call is refused on purpose", "shout", `{"text":"forbidden words"}`, nil, true},
		{"a wasm tool's call is refused on purpose", "echo", `{"text":"forbidden"}`, nil, true},
		{"a hook that traps is skipped and the call goes on", "shout", `{"text":"hookpanic"}`, []string{"HOOKPANIC", "[checked by guard]"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := reg.Call(context.Background(), runtime.Call{Tool: tt.tool, Args: json.RawMessage(tt.args)})
			if tt.refused {
				var he *runtime.HookError
				var re *RefusedError
				if !errors.As(err, &he) || !errors.As(err, &re) || !strings.Contains(err.Error(), "may not contain forbidden") {
					t.Fatalf("err = %v, want a refusal by plugin guard", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Output, w) {
					t.Errorf("output %q does not contain %q", res.Output, w)
				}
			}
			if !strings.HasPrefix(res.Title, "guard: ") || res.Metadata["guard"] != true {
				t.Errorf("title = %q, metadata = %v; want the after hook's changes", res.Title, res.Metadata)
			}
		})
	}
	if !sink.contains("plugin hook failed; skipped") {
		t.Error("the trapping hook was not reported")
	}

	tools, err := reg.Tools(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range tools {
		if !strings.HasSuffix(ti.Description, "(guarded)") {
			t.Errorf("%s description = %q, want the definition hook's suffix", ti.ID, ti.Description)
		}
	}
	sink.waitFor(t, "guard event tool.execute.after echo")
	sink.waitFor(t, "guard event tool.execute.before shout")
	// Session events published by a front end (the agent loop) reach the
	// plugin's event export through the registry too.
	reg.Publish(context.Background(), runtime.EventSessionIdle, map[string]any{"sessionID": "s1"})
	sink.waitFor(t, "guard event session.idle")
}

func TestDescribeCallModulesLoadUnchangedAsTools(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{"acme": {Config: map[string]string{"user": "ada"}}}}
	h := newHost(t, cfg)
	src, err := DirBundle(pluginDir(t, `{"name": "acme", "version": "0.1.0", "abi": "toolhost-abi 1", "modules": ["servlet.wasm"]}`,
		map[string]string{"servlet.wasm": guest(t, "compat")}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.LoadPlugin(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	reg := pluginRegistry(t, cfg, t.TempDir(), nil)
	reg.Add(runtime.SourcePlugin, p.Tools...)
	if got := strings.Join(reg.IDs(), ","); got != "acme_fail,acme_greet,acme_pixel,acme_whoami" {
		t.Fatalf("tools = %s", got)
	}
	tests := []struct {
		name, tool, args, want, wantErr string
		attachments                     int
	}{
		{"text content becomes the output", "acme_greet", `{"name":"Ada"}`, "Hello, Ada!", "", 0},
		{"image content becomes an attachment", "acme_pixel", `{}`, "a red pixel", "", 1},
		{"isError becomes a tool error", "acme_fail", `{}`, "", "the service said no", 0},
		{"config values reach config_get", "acme_whoami", `{}`, "ada", "", 0},
		{"arguments are validated against the described schema", "acme_greet", `{}`, "", "name", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := reg.Call(context.Background(), runtime.Call{Tool: tt.tool, Args: json.RawMessage(tt.args)})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tt.want || len(res.Attachments) != tt.attachments {
				t.Errorf("result = %+v, want output %q and %d attachments", res, tt.want, tt.attachments)
			}
			if tt.attachments > 0 && !strings.HasPrefix(res.Attachments[0].URL, "data:image/png;base64,iVBOR") {
				t.Errorf("attachment = %+v", res.Attachments[0])
			}
		})
	}
}

func TestPluginModulesAreRefusedWhenTheirBytesDifferFromTheDigest(t *testing.T) {
	t.Parallel()
	h := newHost(t, nil)
	dir := pluginDir(t, `{"name": "acme", "version": "0.1.0", "abi": "toolhost-abi 1", "modules": ["servlet.wasm"]}`,
		map[string]string{"servlet.wasm": guest(t, "compat")})
	src, err := DirBundle(dir)
	if err != nil {
		t.Fatal(err)
	}
	src.Modules[0].SHA256 = strings.Repeat("0", 64)
	_, err = h.LoadPlugin(context.Background(), src)
	if err == nil || !strings.Contains(err.Error(), strings.Repeat("0", 64)) || !strings.Contains(err.Error(), "has sha256") {
		t.Fatalf("err = %v, want a refusal naming both digests", err)
	}

	// Changed after loading: the first call compiles from disk and checks again.
	src.Modules[0].SHA256 = ""
	p, err := h.LoadPlugin(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(src.Modules[0].Path)
	os.WriteFile(src.Modules[0].Path, append(data, 0), 0o644)
	var greet runtime.Tool
	for _, tl := range p.Tools {
		if tl.ID() == "acme_greet" {
			greet = tl
		}
	}
	// The module inspected at load stays compiled for the default limits,
	// so ask for others to force a compile from disk.
	h.SetConfig(&config.Config{Wasm: map[string]config.WasmConfig{"acme": {MemoryMaxMB: 64}}})
	if _, err := call(t, greet, `{"name":"x"}`, nil); err == nil || !strings.Contains(err.Error(), "changed on disk") {
		t.Fatalf("err = %v, want the changed module refused", err)
	}
}

func TestManifestsAreCheckedStrictly(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, manifest, want string }{
		{"a valid manifest is accepted", `{"name":"jira","version":"1.2.0","abi":"toolhost-abi 1","modules":["jira.wasm"],"capabilities":{"allowed_hosts":["jira.example.com"],"config":{"token":{"secret":true}}}}`, ""},
		{"a minor ABI version is accepted", `{"name":"jira","version":"1","abi":"toolhost-abi 1.1","modules":["jira.wasm"]}`, ""},
		{"an unknown field is refused", `{"name":"jira","version":"1","abi":"toolhost-abi 1","modules":["jira.wasm"],"colour":"red"}`, `unknown field "colour"`},
		{"another ABI major version names both versions", `{"name":"jira","version":"1","abi":"toolhost-abi 2","modules":["jira.wasm"]}`, `abi "toolhost-abi 2" is not supported: this toolhost speaks "toolhost-abi 1"`},
		{"a name that cannot prefix tool ids is refused", `{"name":"ji ra","version":"1","abi":"toolhost-abi 1","modules":["jira.wasm"]}`, "name"},
		{"a module outside the plugin is refused", `{"name":"jira","version":"1","abi":"toolhost-abi 1","modules":["../x.wasm"]}`, "inside the plugin"},
		{"a plugin without modules is refused", `{"name":"jira","version":"1","abi":"toolhost-abi 1","modules":[]}`, "modules is empty"},
		{"an invalid config schema is refused", `{"name":"jira","version":"1","abi":"toolhost-abi 1","modules":["j.wasm"],"config_schema":{"type":"array"}}`, "config_schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseManifest([]byte(tt.manifest))
			if tt.want == "" && err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(guardManifest))
	f.Add([]byte(`{"name":"a","version":"1","abi":"toolhost-abi 1","modules":["a.wasm"],"capabilities":{"allowed_paths":{"ro:.":"/p"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		if m.Validate() != nil {
			t.Fatal("a parsed manifest must validate")
		}
	})
}

func TestCapabilityIncreasesAreListed(t *testing.T) {
	t.Parallel()
	granted := Capabilities{AllowedHosts: []string{"a.example"}, AllowedPaths: map[string]string{".": "/p"}, Config: map[string]ConfigKey{"token": {Secret: true}}}
	tests := []struct {
		name string
		ask  Capabilities
		want []string
	}{
		{"the same capabilities add nothing", granted, nil},
		{"a read-only path within a read-write grant adds nothing", Capabilities{AllowedPaths: map[string]string{"ro:.": "/p"}}, nil},
		{"a new host is an increase", Capabilities{AllowedHosts: []string{"a.example", "b.example"}}, []string{"network access to b.example"}},
		{"write access to a new path is an increase", Capabilities{AllowedPaths: map[string]string{"/home": "/h"}}, []string{"read and write access to /home (seen as /h)"}},
		{"a new secret is an increase", Capabilities{Config: map[string]ConfigKey{"key": {Secret: true}}}, []string{"the secret config value key"}},
		{"more memory than the default is an increase", Capabilities{MemoryMaxMB: 512}, []string{"512 MB of memory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.ask.Exceeds(granted)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Exceeds = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPluginsAreDiscoveredInConfigDirectories(t *testing.T) {
	t.Parallel()
	cfgDir := t.TempDir()
	os.MkdirAll(filepath.Join(cfgDir, "plugin", "guard"), 0o755)
	os.MkdirAll(filepath.Join(cfgDir, "plugins", "broken"), 0o755)
	os.WriteFile(filepath.Join(cfgDir, "plugin", "guard", ManifestFile), []byte(guardManifest), 0o644)
	os.WriteFile(filepath.Join(cfgDir, "plugins", "broken", ManifestFile), []byte(`{"name":"broken"}`), 0o644)
	os.WriteFile(filepath.Join(cfgDir, "plugins", "solo.wasm"), []byte("\x00asm"), 0o644)
	srcs, errs := DiscoverBundles([]string{cfgDir})
	var names []string
	for _, s := range srcs {
		names = append(names, s.Manifest.Name)
	}
	if strings.Join(names, ",") != "guard,solo" {
		t.Errorf("plugins = %v, want guard (directory) then solo (bare module)", names)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Reason, "version is missing") {
		t.Errorf("errors = %v, want the broken manifest reported", errs)
	}
}

// A folder plugin's Content names the bytes it runs with: each module's
// digest and that of the manifest read, whose capabilities, name and
// module list it was loaded with, so that a trust check judges those.
func TestAPluginsContentIsItsModulesAndTheManifestItWasReadFrom(t *testing.T) {
	t.Parallel()
	h := NewEngine(EngineOptions{CacheDir: sharedCache})
	t.Cleanup(func() { h.Close(context.Background()) })
	dir := pluginDir(t, guardManifest, map[string]string{"guard.wasm": guest(t, "guard")})
	src, err := DirBundle(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Swapped once read: Content still names what was read.
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"name": "guard", "version": "1.0.0", "abi": "toolhost-abi 1", "modules": ["guard.wasm"], "capabilities": {"allowed_hosts": ["*"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := h.LoadPlugin(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	defer h.UnloadPlugin(p)
	sumOf := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	mod, _ := os.ReadFile(filepath.Join(dir, "guard.wasm"))
	want := map[string]string{
		filepath.Join(dir, "guard.wasm"): sumOf(mod),
		filepath.Join(dir, ManifestFile): sumOf([]byte(guardManifest)),
	}
	if got := p.Content(); !maps.Equal(got, want) {
		t.Errorf("Content = %v\nwant %v", got, want)
	}
}
