package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/confine/trust"
	"github.com/toolhost/toolhost/plugins/wasm"
)

// toolhost.lock is the project's file: it picks the package a plugin
// reference runs and the capabilities it runs with (Locked.Granted). The
// user's own config may list a plugin; an untrusted project's lock must
// not decide what that plugin is or what it may do.
func TestAnUntrustedProjectsLockDoesNotPickOrGrantAPlugin(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	ctx := context.Background()
	cacheDir := filepath.Join(env("XDG_CACHE_HOME"), "toolhost")
	vendor := filepath.Join(project, "vendor", "acme")
	copyInto(t, guestModule(t, "compat"), filepath.Join(vendor, "acme.wasm"))
	os.WriteFile(filepath.Join(vendor, wasm.ManifestFile),
		[]byte(`{"name":"acme","version":"0.1.0","abi":"toolhost-abi 1","modules":["acme.wasm"],"capabilities":{"config":{"user":{"description":"who"}}}}`), 0o644)
	// The plugin and its config are the user's own, in the global config.
	global := filepath.Join(env("XDG_CONFIG_HOME"), "toolhost", "toolhost.json")
	os.MkdirAll(filepath.Dir(global), 0o755)
	os.WriteFile(global, []byte(`{"plugin": ["./vendor/acme"], "wasm": {"acme": {"config": {"user": "ada"}}}}`), 0o644)
	opts := Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: cacheDir}
	if _, err := lockPlugin(t, project, env, cacheDir).Add(ctx, "./vendor/acme", true); err != nil {
		t.Fatal(err)
	}

	trusted, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	trusted.Close(ctx)
	if !trusted.Registry.Has("acme_greet") {
		t.Fatalf("trusted, the locked plugin did not load: %v", trusted.LoadErrors)
	}

	opts.Env = untrustedEnv(env)
	h, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if h.TrustStatus().Trusted {
		t.Fatal("the project is trusted; the test needs it untrusted")
	}
	if h.Registry.Has("acme_greet") {
		t.Error("the untrusted project's toolhost.lock chose the package and capabilities of the user's plugin")
	}
	found := false
	for _, e := range h.LoadErrors {
		found = found || strings.Contains(e.Reason, trust.Command)
	}
	if !found {
		t.Errorf("load errors = %v, want one naming %q", h.LoadErrors, trust.Command)
	}
}
