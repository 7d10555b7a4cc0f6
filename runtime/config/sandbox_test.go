package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSandboxCachesFollowTheToolchainsDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		home string
		want []string
	}{
		{"defaults under home", nil, "/h", []string{"/h/.cache", "/h/go/pkg/mod", "/h/.npm", "/h/.cargo/registry", "/h/.cargo/git"}},
		{"variables win", map[string]string{"XDG_CACHE_HOME": "/c", "GOCACHE": "/gc", "GOMODCACHE": "/m", "npm_config_cache": "/n", "CARGO_HOME": "/cargo"}, "/h",
			[]string{"/c", "/gc", "/m", "/n", "/cargo/registry", "/cargo/git"}},
		{"GOPATH's first entry holds the module cache", map[string]string{"GOPATH": "/g1" + string(filepath.ListSeparator) + "/g2"}, "/h", []string{"/h/.cache", "/g1/pkg/mod", "/h/.npm", "/h/.cargo/registry", "/h/.cargo/git"}},
		{"relative values are ignored, as XDG says", map[string]string{"XDG_CACHE_HOME": "rel", "GOCACHE": "rel"}, "/h", []string{"/h/go/pkg/mod", "/h/.npm", "/h/.cargo/registry", "/h/.cargo/git"}},
		{"no home leaves only what variables name", map[string]string{"GOMODCACHE": "/m"}, "", []string{"/m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := SandboxCaches(func(k string) string { return tt.env[k] }, tt.home)
			if !slices.Equal(got, tt.want) {
				t.Errorf("SandboxCaches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSandboxConfigLoadsWithDefaultsAndRejectsEmptyEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	load := func(content string) (*Config, error) {
		env := map[string]string{EnvConfigContent: content, EnvXDGConfigHome: filepath.Join(dir, "cfg")}
		l, err := Load(LoadOptions{Directory: dir, Worktree: dir, Home: dir, Env: func(k string) string { return env[k] }})
		if err != nil {
			return nil, err
		}
		return l.Config, nil
	}
	cfg, err := load(`{}`)
	if err != nil || !cfg.Sandbox.On() || !cfg.Sandbox.NetworkOn() {
		t.Fatalf("defaults: %+v, %v; want enabled with network", cfg.Sandbox, err)
	}
	cfg, err = load(`{"sandbox": {"enabled": false, "network": false, "writable": ["/srv", "rel"]}}`)
	if err != nil || cfg.Sandbox.On() || cfg.Sandbox.NetworkOn() || !slices.Equal(cfg.Sandbox.Writable, []string{"/srv", "rel"}) {
		t.Fatalf("set: %+v, %v", cfg.Sandbox, err)
	}
	for _, bad := range []string{`{"sandbox": {"writable": [""]}}`, `{"sandbox": {"writeable": ["/x"]}}`, `{"sandbox": {"network": "no"}}`} {
		if _, err := load(bad); err == nil || !strings.Contains(err.Error(), "sandbox") {
			t.Errorf("%s: err = %v, want one naming the sandbox key", bad, err)
		}
	}
}
