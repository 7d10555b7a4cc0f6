package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLSPConfig(t *testing.T) {
	t.Parallel()
	names := func(rs []ResolvedLSPServer) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	find := func(rs []ResolvedLSPServer, name string) (ResolvedLSPServer, bool) {
		for _, r := range rs {
			if r.Name == name {
				return r, true
			}
		}
		return ResolvedLSPServer{}, false
	}
	tests := []struct {
		name    string
		file    string
		check   func(t *testing.T, cfg *Config)
		wantErr string
	}{
		{name: "no lsp key uses every built-in server", check: func(t *testing.T, cfg *Config) {
			if got := names(cfg.LSP.Resolve()); len(got) != len(BuiltinLSPServers()) {
				t.Errorf("servers = %v", got)
			}
			if g, ok := find(cfg.LSP.Resolve(), "gopls"); !ok || !g.Builtin || !slices.Equal(g.Extensions, []string{".go"}) {
				t.Errorf("gopls = %+v", g)
			}
		}},
		{name: "lsp false turns every server off", file: `{"lsp": false}`, check: func(t *testing.T, cfg *Config) {
			if !cfg.LSP.Off || len(cfg.LSP.Resolve()) != 0 {
				t.Errorf("LSP = %+v, resolved %v", cfg.LSP, names(cfg.LSP.Resolve()))
			}
		}},
		{name: "lsp true is the default", file: `{"lsp": true}`, check: func(t *testing.T, cfg *Config) {
			if cfg.LSP.Off || len(cfg.LSP.Resolve()) != len(BuiltinLSPServers()) {
				t.Errorf("LSP = %+v", cfg.LSP)
			}
		}},
		{name: "disabled removes one built-in server", file: `{"lsp": {"gopls": {"disabled": true}}}`, check: func(t *testing.T, cfg *Config) {
			if _, ok := find(cfg.LSP.Resolve(), "gopls"); ok {
				t.Error("gopls still resolved")
			}
			if _, ok := find(cfg.LSP.Resolve(), "clangd"); !ok {
				t.Error("clangd went too")
			}
		}},
		{name: "a command overrides a built-in server and keeps its extensions", file: `{"lsp": {"gopls": {"command": ["/opt/gopls", "serve"], "env": {"A": "b"}, "initialization": {"x": 1}}}}`, check: func(t *testing.T, cfg *Config) {
			g, _ := find(cfg.LSP.Resolve(), "gopls")
			if g.Builtin || !slices.Equal(g.Command, []string{"/opt/gopls", "serve"}) || !slices.Equal(g.Extensions, []string{".go"}) || g.Env["A"] != "b" || g.Initialization["x"] == nil {
				t.Errorf("gopls = %+v", g)
			}
		}},
		{name: "a new server is added", file: `{"lsp": {"mine": {"command": ["my-ls", "--stdio"], "extensions": [".my"]}}}`, check: func(t *testing.T, cfg *Config) {
			m, ok := find(cfg.LSP.Resolve(), "mine")
			if !ok || m.Builtin || !slices.Equal(m.Extensions, []string{".my"}) {
				t.Errorf("mine = %+v", m)
			}
		}},
		{name: "a new server without extensions is refused", file: "{\"lsp\": {\n  \"mine\": {\"command\": [\"my-ls\"]}}}", wantErr: `toolhost.json:2: key "lsp.mine.extensions": is required for a server that is not built in`},
		{name: "a new server without a command is refused", file: `{"lsp": {"mine": {"extensions": [".my"]}}}`, wantErr: `key "lsp.mine.command": is required for a server that is not built in`},
		{name: "an extension without its dot is refused", file: `{"lsp": {"gopls": {"extensions": ["go"]}}}`, wantErr: `must be an extension with its dot, such as ".go", got "go"`},
		{name: "an empty command word is refused", file: `{"lsp": {"gopls": {"command": [""]}}}`, wantErr: `has an empty string`},
		{name: "a misspelt field is refused with a suggestion", file: `{"lsp": {"gopls": {"comand": ["gopls"]}}}`, wantErr: `unknown key "lsp.gopls.comand" (did you mean "lsp.gopls.command"?)`},
		{name: "a string is refused", file: `{"lsp": "off"}`, wantErr: `key "lsp": must be false or an object of language servers`},
		{name: "a server that is not an object is refused", file: `{"lsp": {"gopls": true}}`, wantErr: `key "lsp.gopls": must be an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.file != "" {
				writeFile(t, filepath.Join(f.paths().rootDir, "toolhost.json"), tt.file)
			}
			got, err := f.load(nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, got.Config)
		})
	}
}

func TestLSPConfigMergesAcrossFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.paths().rootDir, "toolhost.json"), `{"lsp": false}`)
	// A later file's object replaces an earlier false, as OpenCode's merge does.
	got, err := f.load(map[string]string{"TOOLHOST_CONFIG_CONTENT": `{"lsp": {"gopls": {"command": ["gopls"]}}}`})
	if err != nil {
		t.Fatal(err)
	}
	if got.Config.LSP.Off || got.Config.LSP.Servers["gopls"].Command[0] != "gopls" {
		t.Errorf("LSP = %+v", got.Config.LSP)
	}
}
