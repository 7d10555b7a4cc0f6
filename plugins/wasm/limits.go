package wasm

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// limits are one tool's effective capabilities and limits, resolved from
// config.WasmConfig with the defaults applied. Two tools with equal limits
// share a compiled module and an instance pool.
type limits struct {
	Timeout      time.Duration     `json:"timeout"`
	MemoryPages  uint32            `json:"memory_pages"`
	OutputBytes  int               `json:"output_bytes"`
	AllowedHosts []string          `json:"allowed_hosts,omitempty"`
	AllowedPaths map[string]string `json:"allowed_paths,omitempty"` // host (with ro: prefix, absolute) → guest
	Config       map[string]string `json:"config,omitempty"`
	Env          []string          `json:"env,omitempty"` // NAME=value
	Sampling     bool              `json:"sampling,omitempty"`
	// source names the config key the limits came from, for error
	// messages ("jira", for wasm.jira); "" when only defaults apply.
	source string
}

// key identifies the limits for grouping compiled modules.
func (l limits) key() string {
	b, _ := json.Marshal(l)
	return string(b)
}

// configKey says where a limit is configured, for error messages.
func (l limits) configKey(tool string) string {
	if l.source != "" {
		return "wasm." + l.source
	}
	return "wasm." + tool
}

// resolveLimits finds the config of a tool module: the "wasm" entries
// for its tool id, then its module name, that reach its file (grants stay
// with the file they were given to, config.Config.WasmFor). Relative
// allowed paths resolve against worktree ("" keeps them relative to the
// process's directory).
func resolveLimits(cfg *config.Config, toolID string, m *module, worktree string) limits {
	wc, key, _ := cfg.WasmFor(config.ToolFile{Names: []string{toolID, m.name}, Path: m.path})
	return limitsOf(wc, strings.TrimPrefix(key, "wasm."), worktree)
}

// limitsOf is wc with the defaults applied; source is the "wasm" key it
// came from, for messages.
func limitsOf(wc config.WasmConfig, source, worktree string) limits {
	l := limits{
		Timeout:     time.Duration(config.DefaultWasmTimeoutMS) * time.Millisecond,
		MemoryPages: config.DefaultWasmMemoryMB * 16, // 64 KiB pages
		OutputBytes: config.DefaultWasmOutputMB << 20,
		source:      source,
	}
	if wc.TimeoutMS > 0 {
		l.Timeout = time.Duration(wc.TimeoutMS) * time.Millisecond
	}
	if wc.MemoryMaxMB > 0 {
		l.MemoryPages = uint32(wc.MemoryMaxMB) * 16
	}
	if wc.MaxOutputMB > 0 {
		l.OutputBytes = wc.MaxOutputMB << 20
	}
	l.Sampling = wc.Sampling
	l.AllowedHosts = append([]string(nil), wc.AllowedHosts...)
	sort.Strings(l.AllowedHosts)
	l.AllowedPaths = wc.HostPaths(worktree)
	if len(wc.Config) > 0 {
		l.Config = map[string]string{}
		for k, v := range wc.Config {
			if name, ok := strings.CutSuffix(k, "_env"); ok {
				if val, ok := os.LookupEnv(v); ok {
					l.Config[name] = val
				}
				continue
			}
			l.Config[k] = v
		}
	}
	values := wc.EnvValues()
	for _, name := range wc.Env { // in the config's order
		if v, ok := values[name]; ok {
			l.Env = append(l.Env, name+"="+v)
		}
	}
	return l
}

// scope is what a person's "always" to tool id's ask approves for: this
// module's tool id, from its source and file (permission.Scope).
func (m *module) scope(id string) permission.Scope {
	src := runtime.SourceWasm
	if m.plugin != nil {
		src = runtime.SourcePlugin
	}
	return permission.Scope{Tool: id, Source: string(src), File: m.path}
}
