package wasm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/third_party/jsonschema"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolhost/toolhost/runtime/config"
)

// A plugin's config values ("wasm": {"<name>": {"config": {…}}}) are
// checked before it is loaded — at `toolhost plugin add` and at every
// start — against what its manifest declares: the keys of
// capabilities.config (required, secret) and config_schema. A plugin whose
// config does not pass is not loaded, so its tools are not offered to a
// model that would only see them fail; the problems name the key and the
// fix, and never a secret's value.

// ConfigProblem is one config value of a plugin that is missing or
// invalid.
type ConfigProblem struct {
	// Key is where the value goes: "wasm.jira.config.token".
	Key string
	// Reason says what is wrong, without the value of a secret.
	Reason string
	// Fix says what to do.
	Fix string
}

// ConfigError lists the problems of a plugin's config.
type ConfigError struct {
	Plugin   string
	Problems []ConfigProblem
}

// ErrConfigInvalid is what every *ConfigError is (errors.Is).
var ErrConfigInvalid = errors.New("plugin config is incomplete or invalid")

func (e *ConfigError) Is(target error) bool { return target == ErrConfigInvalid }

func (e *ConfigError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s needs its config set before its tools are offered:", e.Plugin)
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  - %s: %s; %s", p.Key, p.Reason, p.Fix)
	}
	return b.String()
}

// CheckConfig checks the plugin's config values in cfg (the "wasm" entry
// named after the plugin; a key ending in _env reads the environment
// variable it names, as the plugin will) against the manifest. It returns
// nil or a *ConfigError.
func (m Manifest) CheckConfig(cfg *config.Config) error {
	var wc config.WasmConfig
	if cfg != nil {
		wc = cfg.Wasm[m.Name]
	}
	prefix := "wasm." + m.Name + ".config."
	values := map[string]string{}
	unsetEnv := map[string]string{} // key → the variable named but not set
	for k, v := range wc.Config {
		if name, ok := strings.CutSuffix(k, "_env"); ok {
			if val, ok := os.LookupEnv(v); ok {
				values[name] = val
			} else {
				unsetEnv[name] = v
			}
			continue
		}
		values[k] = v
	}
	declared := m.Capabilities.Config
	secret := func(k string) bool { return declared[k].Secret }
	e := &ConfigError{Plugin: m.Name}
	for _, k := range slices.Sorted(maps.Keys(declared)) {
		d := declared[k]
		if values[k] != "" || !d.Required {
			continue
		}
		p := ConfigProblem{Key: prefix + k, Reason: "required, but not set"}
		if d.Description != "" {
			p.Reason = "required (" + d.Description + "), but not set"
		}
		switch env, named := unsetEnv[k]; {
		case named:
			p.Key += "_env"
			p.Reason = fmt.Sprintf("names the environment variable %s, which is not set", env)
			p.Fix = fmt.Sprintf("export %s before starting toolhost", env)
		case d.Secret:
			v := envName(m.Name, k)
			p.Fix = fmt.Sprintf(`it is a secret: set "%s_env": "%s" in wasm.%s.config and export %s`, k, v, m.Name, v)
		default:
			p.Fix = fmt.Sprintf(`set "%s": "…" in wasm.%s.config`, k, m.Name)
		}
		e.Problems = append(e.Problems, p)
	}
	if len(m.ConfigSchema) > 0 {
		probs, err := checkConfigSchema(m, values, prefix, secret)
		if err != nil {
			return err
		}
		for _, p := range probs {
			// A missing value is reported once, as missing.
			if !slices.ContainsFunc(e.Problems, func(q ConfigProblem) bool { return q.Key == p.Key }) {
				e.Problems = append(e.Problems, p)
			}
		}
	}
	if len(e.Problems) == 0 {
		return nil
	}
	return e
}

// envName suggests an environment variable for a secret: JIRA_TOKEN.
func envName(plugin, key string) string {
	up := strings.ToUpper(plugin + "_" + key)
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, up)
}

// checkConfigSchema validates the values against config_schema. Config
// values are strings; where the schema gives a property a type other
// than string (number, integer, boolean, object, array), the string is
// read as JSON first, so "8080" passes {"type": "integer"} and "eighty"
// fails it.
func checkConfigSchema(m Manifest, values map[string]string, prefix string, secret func(string) bool) ([]ConfigProblem, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(m.ConfigSchema))
	if err != nil {
		return nil, fmt.Errorf("plugin %s: config_schema is not JSON: %w", m.Name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseRefs{}) // never read a file a manifest names
	url := "toolhost:///" + m.Name + "/config_schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("plugin %s: config_schema: %w", m.Name, err)
	}
	schema, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: config_schema is not a valid JSON Schema: %w", m.Name, err)
	}
	inst := map[string]any{}
	for k, v := range values {
		inst[k] = v
		if wantsJSON(doc, k) {
			var x any
			if err := json.Unmarshal([]byte(v), &x); err == nil {
				inst[k] = x
			}
		}
	}
	err = schema.Validate(inst)
	var ve *jsonschema.ValidationError
	if err == nil {
		return nil, nil
	}
	if !errors.As(err, &ve) {
		return nil, fmt.Errorf("plugin %s: check config: %w", m.Name, err)
	}
	printer := message.NewPrinter(language.English)
	var out []ConfigProblem
	for _, leaf := range leaves(ve) {
		key := strings.TrimSuffix(prefix, ".")
		top := ""
		if len(leaf.InstanceLocation) > 0 {
			top = leaf.InstanceLocation[0]
			key = prefix + strings.Join(leaf.InstanceLocation, ".")
		}
		keyword := strings.Join(leaf.ErrorKind.KeywordPath(), "/")
		p := ConfigProblem{Key: key, Fix: "see the plugin's config_schema for what it accepts"}
		if top != "" && secret(top) {
			// Messages such as pattern's quote the value: never for a secret.
			p.Reason = fmt.Sprintf("does not match config_schema (%s); the value is secret and not shown", keyword)
			p.Fix = "check the value of the environment variable it comes from"
		} else {
			p.Reason = fmt.Sprintf("does not match config_schema: %s", leaf.ErrorKind.LocalizedString(printer))
			// A message about another key (or the whole object) must not
			// quote a secret either.
			for k, v := range values {
				if secret(k) && v != "" {
					p.Reason = strings.ReplaceAll(p.Reason, v, "[secret "+k+"]")
				}
			}
		}
		out = append(out, p)
	}
	// The validator's order follows map iteration; people read by key.
	slices.SortStableFunc(out, func(a, b ConfigProblem) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// refuseRefs refuses every "$ref" outside the schema itself (the
// library's default loader reads file:// URLs).
type refuseRefs struct{}

func (refuseRefs) Load(url string) (any, error) {
	return nil, fmt.Errorf("config_schema may only refer to itself; %s is not loaded", url)
}

// leaves returns the innermost validation errors: the ones that say what
// is wrong, not that "some subschema failed".
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// wantsJSON says the schema gives property k a type other than string.
func wantsJSON(doc any, k string) bool {
	m, _ := doc.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	p, _ := props[k].(map[string]any)
	switch t := p["type"].(type) {
	case string:
		return t != "string"
	case []any:
		for _, x := range t {
			if x == "string" {
				return false
			}
		}
		return len(t) > 0
	}
	return false
}
