package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// LSPConfig is the "lsp" key: false (every language server off), true or
// absent (the built-in servers), or an object of server name to LSPServer
// that disables, overrides or adds servers, as OpenCode's "lsp" does.
type LSPConfig struct {
	// Off is "lsp": false.
	Off bool
	// Servers are the entries of "lsp": {...}, by name.
	Servers map[string]LSPServer
}

// LSPServer is one entry of "lsp": a language server, or the override of a
// built-in one of the same name.
type LSPServer struct {
	// Command starts the server, which speaks LSP on its standard input
	// and output: ["gopls"]. Required unless disabled.
	Command []string `json:"command,omitempty"`
	// Extensions are the file extensions it serves, with their dot:
	// [".go"]. Required for a server that is not built in; a built-in
	// server keeps its own when this is absent.
	Extensions []string `json:"extensions,omitempty"`
	// Disabled turns the server off: {"disabled": true}.
	Disabled bool `json:"disabled,omitempty"`
	// Env is added to the server's environment.
	Env map[string]string `json:"env,omitempty"`
	// Initialization is sent as the server's initializationOptions, and
	// answers its workspace/configuration requests.
	Initialization map[string]any `json:"initialization,omitempty"`
}

// IsZero reports an absent "lsp" key, for omitzero.
func (l LSPConfig) IsZero() bool { return !l.Off && l.Servers == nil }

// MarshalJSON writes false for Off, else the servers.
func (l LSPConfig) MarshalJSON() ([]byte, error) {
	if l.Off {
		return []byte("false"), nil
	}
	if l.Servers == nil {
		return []byte("true"), nil
	}
	return json.Marshal(l.Servers)
}

// UnmarshalJSON reads false, true, null or an object of servers.
func (l *LSPConfig) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "false":
		*l = LSPConfig{Off: true}
		return nil
	case "true", "null":
		*l = LSPConfig{}
		return nil
	}
	var servers map[string]LSPServer
	if err := json.Unmarshal(b, &servers); err != nil {
		return fmt.Errorf(`"lsp" must be false or an object of language servers: %w`, err)
	}
	*l = LSPConfig{Servers: servers}
	return nil
}

// BuiltinLSPServers returns the language servers used without
// configuration, each only when its command is found on PATH: OpenCode's
// names for them, so "lsp": {"gopls": {...}} overrides the same server in
// both. The map is the caller's.
func BuiltinLSPServers() map[string]LSPServer { return maps.Clone(builtinLSPServers) }

// builtinLSPServers is BuiltinLSPServers' table; never modified.
var builtinLSPServers = map[string]LSPServer{
	"gopls":      {Command: []string{"gopls"}, Extensions: []string{".go"}},
	"typescript": {Command: []string{"typescript-language-server", "--stdio"}, Extensions: []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}},
	"pyright":    {Command: []string{"pyright-langserver", "--stdio"}, Extensions: []string{".py", ".pyi"}},
	"rust":       {Command: []string{"rust-analyzer"}, Extensions: []string{".rs"}},
	"clangd":     {Command: []string{"clangd"}, Extensions: []string{".c", ".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".h++"}},
	"bash":       {Command: []string{"bash-language-server", "start"}, Extensions: []string{".sh", ".bash", ".zsh", ".ksh"}},
	"zls":        {Command: []string{"zls"}, Extensions: []string{".zig", ".zon"}},
	"lua-ls":     {Command: []string{"lua-language-server"}, Extensions: []string{".lua"}},
}

// ResolvedLSPServer is a language server in effect: its name, what it is,
// and whether it came from the built-in table untouched (such a server is
// used only when its command is on PATH, and a missing one is no problem).
type ResolvedLSPServer struct {
	Name string
	LSPServer
	Builtin bool
}

// Resolve returns the servers in effect, by name: the built-in ones, less
// those disabled, with the config's overrides and additions; none when
// Off.
func (l LSPConfig) Resolve() []ResolvedLSPServer {
	if l.Off {
		return nil
	}
	all := map[string]ResolvedLSPServer{}
	for name, s := range builtinLSPServers {
		all[name] = ResolvedLSPServer{Name: name, LSPServer: s, Builtin: true}
	}
	for name, s := range l.Servers {
		if s.Disabled {
			delete(all, name)
			continue
		}
		base, ok := all[name]
		r := ResolvedLSPServer{Name: name, LSPServer: s}
		if len(r.Extensions) == 0 && ok {
			r.Extensions = base.Extensions
		}
		if len(r.Command) == 0 && ok {
			// {"extensions": [...]} alone narrows a built-in server; it
			// stays one (used when found on PATH).
			r.Command, r.Builtin = base.Command, true
		}
		all[name] = r
	}
	out := make([]ResolvedLSPServer, 0, len(all))
	for _, name := range slices.Sorted(maps.Keys(all)) {
		out = append(out, all[name])
	}
	return out
}

// validateLSP reports "lsp" entries that cannot start a server.
func validateLSP(v *validator, l LSPConfig) {
	for _, name := range slices.Sorted(maps.Keys(l.Servers)) {
		s := l.Servers[name]
		if s.Disabled {
			continue
		}
		_, builtin := builtinLSPServers[name]
		if slices.Contains(s.Command, "") {
			v.errorf([]string{"lsp", name, "command"}, `has an empty string; write the program and its arguments: "command": ["gopls"]`)
		}
		if !builtin && len(s.Command) == 0 {
			v.errorf([]string{"lsp", name, "command"}, `is required for a server that is not built in (built in: %s): "command": ["my-server", "--stdio"], or "disabled": true`, builtinLSPNames())
		}
		if !builtin && len(s.Extensions) == 0 {
			v.errorf([]string{"lsp", name, "extensions"}, `is required for a server that is not built in (built in: %s): "extensions": [".ext"]`, builtinLSPNames())
		}
		for i, ext := range s.Extensions {
			if len(ext) < 2 || ext[0] != '.' {
				v.errorf([]string{"lsp", name, "extensions", fmt.Sprintf("[%d]", i)}, `must be an extension with its dot, such as ".go", got %q`, ext)
			}
		}
	}
}

func builtinLSPNames() string {
	names := slices.Sorted(maps.Keys(builtinLSPServers))
	var b bytes.Buffer
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	return b.String()
}
