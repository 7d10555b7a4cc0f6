package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/confine/trust"
	"github.com/toolhost/toolhost/plugins/js/jstooltest"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// untrustedEnv is env without the trust the tests' projects get.
func untrustedEnv(env func(string) string) func(string) string {
	return func(k string) string {
		if k == trust.EnvTrusted {
			return ""
		}
		return env(k)
	}
}

func TestAnUntrustedProjectsServersDoNotStartAndItsToolsAreListedButNotLoaded(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	marker := filepath.Join(t.TempDir(), "mcp-started")
	files := map[string]string{
		"toolhost.json":             fmt.Sprintf(`{"mcp": {"m": {"type": "local", "command": ["sh", "-c", "touch %s"], "timeout": 2000}}, "permission": {"webfetch": "allow"}}`, marker),
		".toolhost/tool/probe.wasm": "\x00asm not a module: never read while untrusted",
		".toolhost/tool/bash.wasm":  "\x00asm",
		".opencode/tool/oc.ts":      "export default {}",
		".toolhost/tool/pyprobe.py": "raise SystemExit('never run while untrusted')\n",
	}
	for rel, body := range files {
		p := filepath.Join(project, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	dataDir := t.TempDir()
	h, err := New(ctx, Options{Directory: project, Env: untrustedEnv(env), DataDir: dataDir, CacheDir: testCache(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	st := h.TrustStatus()
	if st.Trusted || !strings.Contains(st.Notice(), trust.Command) {
		t.Fatalf("TrustStatus = %+v, want untrusted with the command", st)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the untrusted project's MCP server started")
	}
	if len(h.Config.MCP) != 0 {
		t.Errorf("Config.MCP = %v, want the project's servers held back", h.Config.MCP)
	}
	for _, le := range h.LoadErrors {
		t.Errorf("untrusted tool files were read: %+v", le)
	}
	if src, _ := h.Registry.Source("bash"); src != runtime.SourceBuiltin {
		t.Errorf("bash comes from %s: an untrusted project's stub took a built-in's id", src)
	}
	for _, id := range []string{"probe", "oc", "pyprobe"} {
		if !h.Registry.Has(id) {
			t.Errorf("the project's tool %s is not listed", id)
			continue
		}
		res, err := h.Call(ctx, runtime.Call{Tool: id, SessionID: "s", Args: json.RawMessage(`{}`)})
		msg := res.Output
		if err != nil {
			msg += err.Error()
		}
		if !strings.Contains(msg, "not trusted") || !strings.Contains(msg, trust.Command) {
			t.Errorf("call %s = %q, %v; want it refused with the trust command", id, res.Output, err)
		}
	}

	// Trusted, the same content starts the server.
	m, err := trust.Scan(h.TrustReviewer().Dirs)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.StoreIn(dataDir).Trust(m.Worktree, m.Digest, "test"); err != nil {
		t.Fatal(err)
	}
	h2, err := New(ctx, Options{Directory: project, Env: untrustedEnv(env), DataDir: dataDir, CacheDir: testCache(t), NoWasm: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close(ctx)
	if !h2.TrustStatus().Trusted || len(h2.Config.MCP) != 1 {
		t.Errorf("trusted: status %+v, mcp %v", h2.TrustStatus(), h2.Config.MCP)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("trusted: the project's MCP server did not start")
	}
}

// A watching host of a trusted project loads a tool folder's change only
// when the new content is trusted too: a module a command drops into
// .toolhost/tool/ is not loaded; once a person trusts the content, it
// loads with no further change, and so does a change trusted at once.
func TestAWatchingHostLoadsAChangedToolFolderOnlyOnceTrusted(t *testing.T) {
	t.Parallel()
	project, env, cacheDir, echo := untrustedEchoProject(t)
	h, trustNow := watchingTrustedHost(t, project, env, cacheDir, `{"permission": {"echo": "allow", "echo2": "allow"}}`)
	toolDir := filepath.Join(project, ".toolhost", "tool")
	copyInto(t, echo, filepath.Join(toolDir, "echo.wasm"))
	time.Sleep(3 * time.Second) // looks happen every second
	if h.Registry.Has("echo") {
		t.Fatal("a module dropped into the trusted project's tool folder loaded without trust")
	}
	trustNow() // the person trusts what is there now; nothing else changes
	waitFor(t, "the held module loads once trusted", func() bool { return h.Registry.Has("echo") })

	// Trusted right after it lands: whether a look falls between the two
	// or not, it loads.
	copyInto(t, echo, filepath.Join(toolDir, "echo2.wasm.part"))
	if err := os.Rename(filepath.Join(toolDir, "echo2.wasm.part"), filepath.Join(toolDir, "echo2.wasm")); err != nil {
		t.Fatal(err)
	}
	trustNow()
	waitFor(t, "a module trusted as it lands loads", func() bool { return h.Registry.Has("echo2") })
}

// What a person trusts is bytes, not a file's size and time: a module
// held back stays out when the person trusts other bytes put in its place
// with the same size and modification time, and the held bytes, put back
// the same way, never run. (Found by an attacker's review: the retry
// reused the module read before, by size and time, and the trust check
// scanned the disk.)
func TestTrustingOtherBytesInAHeldModulesPlaceDoesNotLoadIt(t *testing.T) {
	t.Parallel()
	project, env, cacheDir, echo := untrustedEchoProject(t)
	h, trustNow := watchingTrustedHost(t, project, env, cacheDir, `{"permission": {"echo": "allow"}}`)
	dst := filepath.Join(project, ".toolhost", "tool", "echo.wasm")
	copyInto(t, echo, dst) // a command's module: held
	time.Sleep(3 * time.Second)
	if h.Registry.Has("echo") {
		t.Fatal("a dropped module loaded without trust")
	}
	st, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	evil, _ := os.ReadFile(dst)
	benign := append([]byte(nil), evil...)
	benign[len(benign)-1] ^= 0xff // other bytes, the same size
	swap := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dst, st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	swap(benign)
	trustNow() // the person reviews and trusts the bytes now there
	time.Sleep(3 * time.Second)
	swap(evil) // put back, the size and time unchanged
	time.Sleep(2 * time.Second)
	if h.Registry.Has("echo") {
		res, err := h.Call(context.Background(), runtime.Call{Tool: "echo", SessionID: "s", Args: json.RawMessage(`{"text":"x"}`)})
		if err == nil {
			t.Fatalf("the held bytes, never trusted, ran: %q", res.Output)
		}
	}
}

// The same holds for a script tool: a JS file dropped into a trusted
// project's tool folder loads only once a person trusts it, and then
// without another change.
func TestAWatchingHostLoadsAHeldJSToolOnceTrusted(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	env = untrustedEnv(env)
	cache := testCache(t)
	jstooltest.SeedEngine(t, cache)
	jstooltest.LinkZod(t, project)
	h, trustNow := watchingTrustedHost(t, project, env, cache, `{"permission": {"late": "allow"}}`)
	file := filepath.Join(project, ".opencode", "tool", "late.ts")
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(openCodeTool), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if h.Registry.Has("late") {
		t.Fatal("a JS tool dropped into the trusted project's tool folder loaded without trust")
	}
	trustNow()
	waitFor(t, "the held JS tool loads once trusted", func() bool { return h.Registry.Has("late") })
}

// watchingTrustedHost writes config into the project, trusts the project
// and starts a watching host on it. It returns the host and a function
// that trusts the project's content as it is when called, as `toolhost
// trust` does.
func watchingTrustedHost(t *testing.T, project string, env func(string) string, cacheDir, config string) (*Host, func()) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	trustNow := trustsNow(t, project, env, dataDir)
	trustNow()
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: dataDir, CacheDir: cacheDir, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(ctx) })
	if !h.TrustStatus().Trusted {
		t.Fatalf("not trusted at start: %+v", h.TrustStatus())
	}
	return h, trustNow
}

// untrustedEchoProject is a project without the tests' blanket trust,
// its environment, a cache that has compiled the echo guest, and that
// guest's path.
func untrustedEchoProject(t *testing.T) (project string, env func(string) string, cacheDir, echo string) {
	t.Helper()
	project, env = newProject(t)
	cacheDir = testCache(t)
	echo = guestModule(t, "echo")
	warmCache(t, cacheDir, echo)
	return project, untrustedEnv(env), cacheDir, echo
}

// trustsNow returns a function that trusts the project's content as it
// is when called.
func trustsNow(t *testing.T, project string, env func(string) string, dataDir string) func() {
	store := trust.StoreIn(dataDir)
	return func() {
		t.Helper()
		m, err := trust.Scan(trustDirs(project, env))
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Trust(m.Worktree, m.Digest, "test"); err != nil {
			t.Fatal(err)
		}
	}
}

func trustDirs(project string, env func(string) string) config.DirOptions {
	return config.DirOptions{Directory: project, Worktree: project, Env: env, Home: env("HOME")}
}

// A module dropped into a trusted project's tool folder does not run at
// all until a person trusts it: not even to describe its tools (which
// writes its description to the cache, named by its digest).
func TestAHeldModulesCodeDoesNotRunToDescribeIt(t *testing.T) {
	t.Parallel()
	project, env, cacheDir, echo := untrustedEchoProject(t)
	h, trustNow := watchingTrustedHost(t, project, env, cacheDir, `{"permission": {"echo": "allow"}}`)
	data, err := os.ReadFile(echo)
	if err != nil {
		t.Fatal(err)
	}
	// Other bytes, the same tools: a custom section ("note", "x") at the
	// end, so that no description of these bytes is cached yet.
	data = append(data, 0x00, 0x06, 0x04, 'n', 'o', 't', 'e', 'x')
	sum := sha256.Sum256(data)
	described := func() bool {
		found := false
		filepath.WalkDir(cacheDir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == hex.EncodeToString(sum[:])+".json" {
				found = true
			}
			return nil
		})
		return found
	}
	if described() {
		t.Fatal("the module's description is cached before the test")
	}
	toolDir := filepath.Join(project, ".toolhost", "tool")
	if err := os.MkdirAll(toolDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(toolDir, "echo.wasm"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // looks happen every second
	if h.Registry.Has("echo") {
		t.Fatal("a dropped module loaded without trust")
	}
	if described() {
		t.Error("the held module's code ran to describe its tools before a person trusted it")
	}
	trustNow()
	waitFor(t, "the held module loads once trusted", func() bool { return h.Registry.Has("echo") })
	if !described() {
		t.Error("the module loaded without being described: the test no longer shows that describing waits for trust")
	}
}
