package agent

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
)

func TestAModelIdIsResolvedToItsProviderOrRefusedWithTheProvidersNamed(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Provider: map[string]config.Provider{
		"ollama": {BaseURL: "http://127.0.0.1:11434/v1"},
		"fm":     {BaseURL: "http://127.0.0.1:9/v1", Models: []string{"big-model"}},
	}}
	tests := []struct {
		name     string
		cfg      *config.Config
		model    string
		router   string // OPENAI_BASE_URL
		provider string // want; "" with wantErr
		sent     string
		wantErr  []string
	}{
		{"a configured prefix picks the provider and is stripped", cfg, "ollama/qwen3:8b", "", "ollama", "qwen3:8b", nil},
		{"a listed model picks its provider whole", cfg, "big-model", "", "fm", "big-model", nil},
		{"an id without a prefix goes to the environment's endpoint", cfg, "gpt-4.1", "", "", "gpt-4.1", nil},
		{"an unknown prefix is an error naming the configured providers", cfg, "zz9/x", "", "", "",
			[]string{`no provider "zz9"`, "configured providers: fm, ollama", `"provider": {"zz9"`, "OPENAI_BASE_URL"}},
		{"a near miss is an error with the likely provider, even with a router", cfg, "fm2/x", "http://127.0.0.1:1/v1", "", "",
			[]string{`no provider "fm2" (did you mean "fm"?)`}},
		{"with a router set, a foreign prefix is the router's id, sent whole", cfg, "anthropic/claude-x", "http://127.0.0.1:1/v1", "", "anthropic/claude-x", nil},
		{"without providers the error says none are configured", &config.Config{}, "fm2/x", "", "", "",
			[]string{"no providers are configured"}},
		{"a trailing slash is no prefix", cfg, "weird/", "", "", "weird/", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := func(k string) string {
				if k == EnvBaseURL {
					return tc.router
				}
				return ""
			}
			ep, err := ResolveEndpoint(tc.cfg, tc.model, env)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("resolved to %+v, want an error", ep)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error lacks %q: %v", want, err)
					}
				}
				return
			}
			if err != nil || ep.Provider != tc.provider || ep.Model != tc.sent {
				t.Fatalf("= %+v, %v; want provider %q sending %q", ep, err, tc.provider, tc.sent)
			}
		})
	}
}
