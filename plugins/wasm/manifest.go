package wasm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/hostfns"
)

// ManifestFile is the name of a plugin's manifest, at the root of its
// directory or archive.
const ManifestFile = "toolhost-plugin.json"

// Manifest is a plugin's toolhost-plugin.json. docs/plugins.md documents
// it for authors; every field comment here is that documentation.
type Manifest struct {
	// Name identifies the plugin: ^[a-zA-Z0-9_-]{1,64}$. It prefixes the
	// tool ids of describe/call modules and is the config key
	// ("wasm": {"<name>": {…}}) for the plugin's settings.
	Name string `json:"name"`
	// Version is the plugin's own version ("1.2.0"), shown to people.
	Version string `json:"version"`
	// Description says what the plugin is for.
	Description string `json:"description,omitempty"`
	// ABI is the toolhost ABI the modules were written for
	// ("toolhost-abi 1"); a different major version is refused.
	ABI string `json:"abi"`
	// Modules are the plugin's wasm files, relative to the manifest, in
	// the order their hooks run.
	Modules []string `json:"modules"`
	// Capabilities are what the plugin asks for. A person agrees to them
	// when the plugin is added; a later version asking for more needs
	// agreement again.
	Capabilities Capabilities `json:"capabilities,omitzero"`
	// ConfigSchema, when present, is a JSON Schema for the plugin's
	// config values ("wasm": {"<name>": {"config": {…}}}).
	ConfigSchema json.RawMessage `json:"config_schema,omitempty"`
}

// Capabilities are what a plugin's modules may do beyond pure
// computation. The zero value grants nothing.
type Capabilities struct {
	// AllowedHosts the modules may reach over HTTP ("api.example.com",
	// "*.example.com").
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
	// AllowedPaths maps host paths (relative to the project root; "ro:"
	// for read-only) to guest paths: {"ro:.": "/project"}.
	AllowedPaths map[string]string `json:"allowed_paths,omitempty"`
	// Config lists the config keys the plugin reads, what they mean, and
	// whether they are secret (a token).
	Config map[string]ConfigKey `json:"config,omitempty"`
	// MemoryMaxMB the modules need; default 256.
	MemoryMaxMB int `json:"memory_max_mb,omitempty"`
	// TimeoutMS per call the modules need; default 60000.
	TimeoutMS int `json:"timeout_ms,omitempty"`
}

// ConfigKey describes one config value a plugin reads with config_get.
type ConfigKey struct {
	Description string `json:"description,omitempty"`
	// Secret marks a credential: it should come from an environment
	// variable ("token_env": "JIRA_TOKEN"), not be written in a file.
	Secret bool `json:"secret,omitempty"`
	// Required says the plugin cannot work without it.
	Required bool `json:"required,omitempty"`
}

// ParseManifest decodes and checks a manifest strictly: unknown fields,
// a bad name, a missing module list or another ABI major version are
// errors naming the field.
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	if err := m.Validate(); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	return m, nil
}

// ReadManifest reads dir/toolhost-plugin.json.
func ReadManifest(dir string) (Manifest, error) {
	m, _, err := readManifest(dir)
	return m, err
}

// readManifest is ReadManifest, and the hex SHA-256 of the bytes read.
func readManifest(dir string) (Manifest, string, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return Manifest{}, "", fmt.Errorf("read plugin manifest: %w", err)
	}
	m, err := ParseManifest(data)
	if err != nil {
		return Manifest{}, "", fmt.Errorf("%s: %w", dir, err)
	}
	sum := sha256.Sum256(data)
	return m, hex.EncodeToString(sum[:]), nil
}

// Validate checks the fields a host relies on.
func (m Manifest) Validate() error {
	if !validID().MatchString(m.Name) {
		return fmt.Errorf("name %q must match %s (it prefixes tool ids)", m.Name, validID())
	}
	if m.Version == "" {
		return fmt.Errorf(`version is missing; set "version": "1.0.0"`)
	}
	if err := checkABI(m.ABI); err != nil {
		return err
	}
	if len(m.Modules) == 0 {
		return fmt.Errorf(`modules is empty; list the plugin's wasm files: "modules": ["%s.wasm"]`, m.Name)
	}
	seen := map[string]bool{}
	for _, mod := range m.Modules {
		clean := path.Clean(mod)
		if mod == "" || path.IsAbs(mod) || strings.HasPrefix(clean, "../") || clean == ".." || strings.Contains(mod, `\`) || !strings.HasSuffix(mod, ".wasm") {
			return fmt.Errorf("module %q must be a relative path to a .wasm file inside the plugin, with / separators", mod)
		}
		if seen[clean] {
			return fmt.Errorf("module %q is listed twice", mod)
		}
		seen[clean] = true
	}
	if len(m.ConfigSchema) > 0 {
		if err := checkSchema(m.Name+" config", m.ConfigSchema); err != nil {
			return fmt.Errorf("config_schema: %w", err)
		}
	}
	for k, v := range m.Capabilities.AllowedPaths {
		if strings.TrimPrefix(k, "ro:") == "" || v == "" {
			return fmt.Errorf("capabilities.allowed_paths: %q → %q needs a host path and a guest path", k, v)
		}
	}
	return nil
}

// checkABI accepts "toolhost-abi 1" and minor versions of it ("1.1"),
// and names both versions otherwise.
func checkABI(abi string) error {
	want := hostfns.ABIVersion
	major := strings.TrimPrefix(want, "toolhost-abi ")
	got, ok := strings.CutPrefix(abi, "toolhost-abi ")
	if ok {
		gotMajor, _, _ := strings.Cut(got, ".")
		if gotMajor == major {
			return nil
		}
	}
	return fmt.Errorf("abi %q is not supported: this toolhost speaks %q; rebuild the plugin for it or use a toolhost that speaks %q", abi, want, abi)
}

// Exceeds lists what c asks for beyond granted, one line per
// capability, empty when granted covers c. A host or path counts as
// granted only when listed exactly; a read-write path exceeds a
// read-only grant of the same path.
func (c Capabilities) Exceeds(granted Capabilities) []string {
	var out []string
	for _, h := range c.AllowedHosts {
		if !slices.Contains(granted.AllowedHosts, h) {
			out = append(out, "network access to "+h)
		}
	}
	for _, host := range slices.Sorted(maps.Keys(c.AllowedPaths)) {
		guest := c.AllowedPaths[host]
		if g, ok := granted.AllowedPaths[host]; ok && g == guest {
			continue
		}
		if ro, ok := strings.CutPrefix(host, "ro:"); ok {
			if g, ok := granted.AllowedPaths[ro]; ok && g == guest {
				continue // read-write was granted
			}
		}
		out = append(out, describePath(host, guest))
	}
	for _, k := range slices.Sorted(maps.Keys(c.Config)) {
		if _, ok := granted.Config[k]; !ok && c.Config[k].Secret {
			out = append(out, "the secret config value "+k)
		}
	}
	if c.MemoryMaxMB > max(granted.MemoryMaxMB, 256) {
		out = append(out, fmt.Sprintf("%d MB of memory", c.MemoryMaxMB))
	}
	if c.TimeoutMS > max(granted.TimeoutMS, 60000) {
		out = append(out, fmt.Sprintf("%d ms per call", c.TimeoutMS))
	}
	return out
}

// Describe lists every capability for a person to read, one per line.
func (c Capabilities) Describe() []string {
	lines := c.Exceeds(Capabilities{})
	var cfg []string
	for _, k := range slices.Sorted(maps.Keys(c.Config)) {
		v := c.Config[k]
		if v.Secret {
			continue // already listed by Exceeds
		}
		line := "the config value " + k
		if v.Description != "" {
			line += " (" + v.Description + ")"
		}
		cfg = append(cfg, line)
	}
	lines = append(lines, cfg...)
	if len(lines) == 0 {
		return []string{"nothing beyond computing: no network, files, environment or secrets"}
	}
	return lines
}

func describePath(host, guest string) string {
	if h, ok := strings.CutPrefix(host, "ro:"); ok {
		return fmt.Sprintf("read access to %s (seen as %s)", h, guest)
	}
	return fmt.Sprintf("read and write access to %s (seen as %s)", host, guest)
}
