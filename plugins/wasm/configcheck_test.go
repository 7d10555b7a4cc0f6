package wasm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
)

func TestCheckConfigNamesTheKeyAndTheFixAndNeverASecret(t *testing.T) {
	t.Setenv("CFGTEST_TOKEN", "s3cr3t-token-value")
	t.Setenv("CFGTEST_BADTOKEN", "hunter2-not-hex")
	man := Manifest{
		Name: "jira",
		Capabilities: Capabilities{Config: map[string]ConfigKey{
			"base_url": {Description: "your Jira site", Required: true},
			"token":    {Description: "API token", Secret: true, Required: true},
			"port":     {},
		}},
		ConfigSchema: []byte(`{"type":"object","properties":{
			"port":{"type":"integer","minimum":1},
			"base_url":{"type":"string","pattern":"^https://"},
			"token":{"type":"string","pattern":"^[0-9a-f]+$"}}}`),
	}
	cfg := func(kv map[string]string) *config.Config {
		return &config.Config{Wasm: map[string]config.WasmConfig{"jira": {Config: kv}}}
	}
	tests := []struct {
		name     string
		cfg      *config.Config
		wantKeys []string // problems, by key; nil: valid
		want     []string // in the message
	}{
		{"a valid config passes", cfg(map[string]string{"base_url": "https://acme.example", "token_env": "CFGTEST_HEX", "port": "8080"}), nil, nil},
		{"a secret from an unset variable names the variable", cfg(map[string]string{"base_url": "https://acme.example", "token_env": "CFGTEST_UNSET_VAR"}), []string{"wasm.jira.config.token_env"}, []string{"CFGTEST_UNSET_VAR, which is not set", "export CFGTEST_UNSET_VAR"}},
		{"an empty required value counts as missing", cfg(map[string]string{"base_url": "", "token": "abc"}), []string{"wasm.jira.config.base_url"}, []string{"required (your Jira site), but not set"}},
		{"no config at all lists every required key", nil, []string{"wasm.jira.config.base_url", "wasm.jira.config.token"}, []string{"your Jira site", `"token_env": "JIRA_TOKEN"`, "export JIRA_TOKEN"}},
		{"a value of the wrong type is named with the schema's complaint", cfg(map[string]string{"base_url": "https://a", "token": "abc", "port": "eighty"}), []string{"wasm.jira.config.port"}, []string{"want integer"}},
		{"a number out of range is refused", cfg(map[string]string{"base_url": "https://a", "token": "abc", "port": "0"}), []string{"wasm.jira.config.port"}, []string{"minimum"}},
		{"a non-secret value that fails a pattern is quoted", cfg(map[string]string{"base_url": "ftp://a", "token": "abc"}), []string{"wasm.jira.config.base_url"}, []string{"ftp://a"}},
		{"a secret pasted into another key is hidden in that key's message", cfg(map[string]string{"base_url": "s3cr3t-token-value", "token_env": "CFGTEST_TOKEN"}), []string{"wasm.jira.config.base_url", "wasm.jira.config.token"}, []string{"'[secret token]' does not match pattern"}},
		{"a secret that fails a pattern is not shown", cfg(map[string]string{"base_url": "https://a", "token_env": "CFGTEST_BADTOKEN"}), []string{"wasm.jira.config.token"}, []string{"secret and not shown"}},
	}
	t.Setenv("CFGTEST_HEX", "0ff1ce")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := man.CheckConfig(tt.cfg)
			if tt.wantKeys == nil {
				if err != nil {
					t.Fatalf("CheckConfig: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, ErrConfigInvalid) {
				t.Fatalf("CheckConfig = %v, want a *ConfigError", err)
			}
			var keys []string
			for _, p := range ce.Problems {
				keys = append(keys, p.Key)
			}
			if strings.Join(keys, ",") != strings.Join(tt.wantKeys, ",") {
				t.Errorf("problems at %v, want %v\n%v", keys, tt.wantKeys, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			for _, s := range []string{"s3cr3t-token-value", "hunter2"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error shows a secret value:\n%v", err)
				}
			}
		})
	}
}

func TestCheckConfigAcceptsAValidConfig(t *testing.T) {
	t.Setenv("CFGTEST_TOKEN2", "abc123")
	man := Manifest{Name: "p", Capabilities: Capabilities{Config: map[string]ConfigKey{"token": {Secret: true, Required: true}, "flag": {Required: true}}},
		ConfigSchema: []byte(`{"type":"object","properties":{"flag":{"type":"boolean"},"token":{"type":"string","minLength":3}},"required":["flag"]}`)}
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{"p": {Config: map[string]string{"token_env": "CFGTEST_TOKEN2", "flag": "true"}}}}
	if err := man.CheckConfig(cfg); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	if err := (Manifest{Name: "q"}).CheckConfig(nil); err != nil {
		t.Fatalf("a plugin without config keys: %v", err)
	}
}

// A manifest's schema must not make the host read its files: a "$ref" to
// a file is refused when the manifest is checked, before any config is.
func TestAConfigSchemaCannotReferToAFileOnTheHost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	os.WriteFile(file, []byte(`{"type":"integer"}`), 0o644)
	for _, ref := range []string{"file://" + filepath.ToSlash(file), "file:///dev/zero"} {
		raw := fmt.Sprintf(`{"name":"p","version":"1","abi":"toolhost-abi 1","modules":["p.wasm"],"config_schema":{"type":"object","properties":{"x":{"$ref":%q}}}}`, ref)
		if _, err := ParseManifest([]byte(raw)); err == nil || !strings.Contains(err.Error(), "not loaded") {
			t.Errorf("config_schema with $ref %s: %v, want it refused", ref, err)
		}
		m := Manifest{Name: "p", ConfigSchema: []byte(fmt.Sprintf(`{"properties":{"x":{"$ref":%q}}}`, ref))}
		if err := m.CheckConfig(nil); err == nil || !strings.Contains(err.Error(), "not loaded") {
			t.Errorf("CheckConfig with $ref %s: %v, want it refused", ref, err)
		}
	}
}
