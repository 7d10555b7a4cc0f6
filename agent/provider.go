package agent

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/third_party/openai"
	"github.com/toolhost/toolhost/internal/third_party/openai/option"

	"github.com/toolhost/toolhost/runtime/config"
)

// Environment variables read when a model's provider does not say otherwise;
// the same names the OpenAI SDKs read, so an existing setup works unchanged.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
)

// Endpoint is where one model is served and how to reach it.
type Endpoint struct {
	// Provider is the config key that matched ("" for the environment
	// default).
	Provider string
	// BaseURL of the Chat Completions API ("" for the library default).
	BaseURL string
	APIKey  string
	// Model is the id sent to the endpoint: the model id without the
	// provider prefix.
	Model string
	// Strict turns on OpenAI strict function schemas.
	Strict bool
}

// ResolveEndpoint finds the endpoint for a model id. In order:
//
//  1. "name/model" where name is a key of cfg.Provider: that provider, and
//     "model" is sent ("ollama/qwen3:8b" → provider ollama, model qwen3:8b);
//  2. a provider whose models list holds the whole id;
//  3. otherwise the environment: OPENAI_BASE_URL and OPENAI_API_KEY, with
//     the id sent unchanged (so "openai/gpt-4.1" reaches a router that
//     expects exactly that).
//
// An id with a prefix that names no configured provider ("fm2/x") is an
// error naming the configured providers — a typo must not silently reach
// another endpoint — unless OPENAI_BASE_URL is set and the prefix is not
// close to a provider's name: then it is a router's id, sent unchanged.
//
// A provider without base_url falls back to OPENAI_BASE_URL, and one
// without a key to OPENAI_API_KEY. env reads environment variables.
func ResolveEndpoint(cfg *config.Config, model string, env func(string) string) (Endpoint, error) {
	if model == "" {
		return Endpoint{}, fmt.Errorf("no model given; pass --model (e.g. --model ollama/qwen3) or set \"model\" in the config")
	}
	if cfg == nil {
		cfg = &config.Config{}
	}
	ep := Endpoint{Model: model}
	if name, rest, ok := strings.Cut(model, "/"); ok && rest != "" {
		if p, found := cfg.Provider[name]; found {
			ep = fromProvider(name, p, rest, env)
		}
	}
	if ep.Provider == "" {
		for _, name := range slices.Sorted(maps.Keys(cfg.Provider)) {
			if p := cfg.Provider[name]; slices.Contains(p.Models, model) {
				ep = fromProvider(name, p, model, env)
				break
			}
		}
	}
	if prefix, rest, ok := strings.Cut(model, "/"); ok && rest != "" && ep.Provider == "" {
		if err := unknownProvider(cfg, model, prefix, env(EnvBaseURL) != ""); err != nil {
			return Endpoint{}, err
		}
	}
	if ep.BaseURL == "" {
		ep.BaseURL = env(EnvBaseURL)
	}
	if ep.APIKey == "" {
		ep.APIKey = env(EnvAPIKey)
	}
	return ep, nil
}

// unknownProvider is the error for a model id whose prefix names no
// configured provider, or nil when the id is for the router at
// OPENAI_BASE_URL (routerSet, and the prefix is not a near miss).
func unknownProvider(cfg *config.Config, model, prefix string, routerSet bool) error {
	names := slices.Sorted(maps.Keys(cfg.Provider))
	near := config.Suggest(prefix, names)
	if routerSet && near == "" {
		return nil
	}
	configured := "no providers are configured"
	if len(names) > 0 {
		configured = "configured providers: " + strings.Join(names, ", ")
	}
	if near != "" {
		return fmt.Errorf("model %q: no provider %q (did you mean %q?); %s", model, prefix, near, configured)
	}
	return fmt.Errorf("model %q: no provider %q; %s. Add \"provider\": {%q: {\"base_url\": \"…\"}} to toolhost.json, or set %s to a router that takes %q as is",
		model, prefix, configured, prefix, EnvBaseURL, model)
}

func fromProvider(name string, p config.Provider, model string, env func(string) string) Endpoint {
	key := p.APIKey
	if key == "" && p.APIKeyEnv != "" {
		key = env(p.APIKeyEnv)
	}
	return Endpoint{Provider: name, BaseURL: p.BaseURL, APIKey: key, Model: model, Strict: p.Strict}
}

// localKey is sent when no key is configured: local servers (Ollama, vLLM,
// llama.cpp) ignore the Authorization header, and a request without one is
// refused by the client library before it is sent.
const localKey = "none"

// client builds an OpenAI client for ep. Retries are left to the library
// (it retries 429 and 5xx with backoff).
func (ep Endpoint) client(hc *http.Client) openai.Client {
	key := ep.APIKey
	if key == "" {
		key = localKey
	}
	opts := []option.RequestOption{option.WithAPIKey(key)}
	if ep.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(ep.BaseURL))
	}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return openai.NewClient(opts...)
}
