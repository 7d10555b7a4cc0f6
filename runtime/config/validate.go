package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The values AgentConfig.Mode and MCPServer.Type accept.
var (
	AgentModes = []string{"primary", "subagent", "all"}
	MCPTypes   = []string{"local", "remote"}
)

// toolPattern is what a key of a tools map may be: a tool id, or one with
// the * and ? wildcards permission.Match understands.
var toolPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.\-*?]+$`) })

// toolPrefix is what Server.ToolPrefix may be: characters MCP clients keep
// in tool names, at most 64 of them.
var toolPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_\-]{1,64}$`) })

// validator checks what the types cannot say. It runs on the merged config,
// so a value set in one file and completed in another (an MCP server's type
// here, its url there) is judged whole; origins still point each problem at
// the line that last set the key.
type validator struct {
	origins map[string]origin
	errs    []error
}

func validate(cfg *Config, origins map[string]origin) error {
	v := &validator{origins: origins}
	v.nonNegative(cfg.ToolOutput.MaxLines, "tool_output", "max_lines")
	v.nonNegative(cfg.ToolOutput.MaxBytes, "tool_output", "max_bytes")
	v.nonNegative(cfg.Bash.TimeoutMS, "bash", "timeout_ms")
	v.toolKeys(cfg.Tools, "tools")
	for i, name := range cfg.Instructions {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
			v.errorf([]string{"instructions"}, "entry %d (%q) is not a plain file name; name files the read tool looks for in each directory: \"instructions\": [\"AGENTS.md\", \"CLAUDE.md\"]", i, name)
		}
	}
	for i, w := range cfg.Sandbox.Writable {
		if strings.TrimSpace(w) == "" {
			v.errorf([]string{"sandbox", "writable"}, "entry %d is empty; name a directory: \"writable\": [\"/srv/data\"]", i)
		}
	}
	for i, r := range cfg.Sandbox.Readable {
		if strings.TrimSpace(r) == "" {
			v.errorf([]string{"sandbox", "readable"}, "entry %d is empty; name a directory: \"readable\": [\"~/.ssh\"]", i)
		}
	}

	for _, name := range slices.Sorted(maps.Keys(cfg.Agent)) {
		a := cfg.Agent[name]
		if a.Mode != "" && !slices.Contains(AgentModes, a.Mode) {
			v.errorf([]string{"agent", name, "mode"}, "must be primary, subagent or all, got %q", a.Mode)
		}
		v.nonNegative(a.MaxSteps, "agent", name, "max_steps")
		if a.Temperature != nil && (*a.Temperature < 0 || *a.Temperature > 2) {
			v.errorf([]string{"agent", name, "temperature"}, "must be between 0 and 2, got %v", *a.Temperature)
		}
		v.toolKeys(a.Tools, "agent", name, "tools")
	}

	for _, name := range slices.Sorted(maps.Keys(cfg.MCP)) {
		s := cfg.MCP[name]
		switch s.Type {
		case "local":
			if len(s.Command) == 0 || s.Command[0] == "" {
				v.errorf([]string{"mcp", name, "command"}, `is required for a local server: "command": ["npx", "-y", "my-mcp-server"]`)
			}
		case "remote":
			if s.URL == "" {
				v.errorf([]string{"mcp", name, "url"}, `is required for a remote server: "url": "https://host/mcp"`)
			} else {
				v.httpURL(s.URL, "mcp", name, "url")
			}
		case "":
			v.errorf([]string{"mcp", name, "type"}, `is required: "local" (a command speaking stdio) or "remote" (a URL)`)
		default:
			v.errorf([]string{"mcp", name, "type"}, `must be "local" or "remote", got %q`, s.Type)
		}
		v.nonNegative(s.Timeout, "mcp", name, "timeout")
	}

	for _, name := range slices.Sorted(maps.Keys(cfg.Wasm)) {
		w := cfg.Wasm[name]
		v.nonNegative(w.TimeoutMS, "wasm", name, "timeout_ms")
		v.nonNegative(w.MemoryMaxMB, "wasm", name, "memory_max_mb")
		v.nonNegative(w.MaxOutputMB, "wasm", name, "max_output_mb")
	}

	validateLSP(v, cfg.LSP)

	if err := CheckStoreURL(cfg.Store.URL); err != nil {
		v.errorf([]string{"store", "url"}, "%s", err)
	}
	if err := CheckStoreURL(cfg.Store.ListenURL); err != nil {
		v.errorf([]string{"store", "listen_url"}, "%s", err)
	}
	if _, err := storeRetention(cfg.Store.Retention); err != nil {
		v.errorf([]string{"store", "retention"}, "%s", err)
	}
	if _, err := storeDuration(cfg.Store.StartWait, 0); err != nil {
		v.errorf([]string{"store", "start_wait"}, "%s", err)
	}
	switch cfg.Server.AskFallback {
	case "", AskFallbackDeny, AskFallbackAllow, AskFallbackInbox:
	default:
		v.errorf([]string{"server", "ask_fallback"}, `must be "deny", "allow" or "inbox", got %q`, cfg.Server.AskFallback)
	}
	if p := cfg.Server.ToolPrefix; p != nil && *p != "" && !toolPrefix().MatchString(*p) {
		v.errorf([]string{"server", "tool_prefix"}, `must be letters, digits, _ and -, as MCP clients name tools, got %q`, *p)
	}

	for _, name := range slices.Sorted(maps.Keys(cfg.Provider)) {
		if u := cfg.Provider[name].BaseURL; u != "" {
			v.httpURL(u, "provider", name, "base_url")
		}
	}
	return errors.Join(v.errs...)
}

func (v *validator) errorf(path []string, format string, args ...any) {
	o, ok := v.lookup(path)
	if !ok {
		o = origin{source: "config"}
	}
	v.errs = append(v.errs, &Error{
		Source: o.source,
		Line:   o.line,
		Key:    formatPath(path),
		Msg:    fmt.Sprintf("key %q: %s", formatPath(path), fmt.Sprintf(format, args...)),
	})
}

// lookup finds where path, or failing that its nearest ancestor, was set:
// a missing key is reported at the object that lacks it.
func (v *validator) lookup(path []string) (origin, bool) {
	for n := len(path); n > 0; n-- {
		if o, ok := v.origins[pathKey(path[:n])]; ok {
			return o, true
		}
	}
	return origin{}, false
}

func (v *validator) nonNegative(n int, path ...string) {
	if n < 0 {
		v.errorf(path, "must not be negative, got %d; leave it out for the default", n)
	}
}

func (v *validator) toolKeys(m map[string]bool, path ...string) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !toolPattern().MatchString(k) {
			v.errorf(append(slices.Clip(path), k), "is not a tool id or wildcard; use letters, digits, _ - . and the wildcards * and ?")
		}
	}
}

func (v *validator) httpURL(s string, path ...string) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.errorf(path, "must be an http or https URL, got %q", s)
	}
}
