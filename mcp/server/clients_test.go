package server

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestClientsAreRecognisedByTheNameTheyGive: each known client's
// clientInfo.name, exactly as the client sends it, gets the prefix its
// model calls toolhost's tools by; a client that appends the server key
// to its name is named under that key; anything else is unknown.
func TestClientsAreRecognisedByTheNameTheyGive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, client, prefix string
		known                bool
	}{
		{"OpenCode", "opencode", "toolhost_", true},
		{"Claude Code", "claude-code", "mcp__toolhost__", true},
		{"Qwen Code as it introduces itself under the key toolhost", "qwen-cli-mcp-client-toolhost", "mcp__toolhost__", true},
		{"Qwen Code under another key", "qwen-cli-mcp-client-tools", "mcp__tools__", true},
		{"Qwen Code without a key", "qwen-cli-mcp-client", "mcp__toolhost__", true},
		{"Gemini CLI", "gemini-cli-mcp-client", "mcp_toolhost_", true},
		{"Gemini CLI with the key after its name", "gemini-cli-mcp-client-gh", "mcp_gh_", true},
		{"Codex", "codex-mcp-client", "mcp__toolhost__", true},
		{"names are compared without case or surrounding space", " Claude-Code ", "mcp__toolhost__", true},
		{"a key with characters no tool name has is not taken", "qwen-cli-mcp-client-a b`rm -rf`", "mcp__toolhost__", true},
		{"a key longer than a tool name allows is not taken", "qwen-cli-mcp-client-" + strings.Repeat("k", 65), "mcp__toolhost__", true},
		{"a name that only starts like Qwen's is not Qwen", "qwen-cli-mcp-clientele", "", false},
		{"a client that does not append keys is matched exactly", "opencode-toolhost", "", false},
		{"the MCP Inspector is not guessed", "mcp-inspector", "", false},
		{"an empty name is unknown", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prefix, known := clientPrefix(tt.client)
			if prefix != tt.prefix || known != tt.known {
				t.Errorf("clientPrefix(%q) = %q, %v; want %q, %v", tt.client, prefix, known, tt.prefix, tt.known)
			}
		})
	}
}

// TestAnUnknownClientIsLoggedOnceWithTheRemedy: the log names the client
// and --tool-prefix, once per name, and stops remembering names past a
// bound (over HTTP each session may give another).
func TestAnUnknownClientIsLoggedOnceWithTheRemedy(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := &Server{log: slog.New(slog.NewTextHandler(&buf, nil))}
	s.unknownClient("cursor-vscode")
	s.unknownClient("cursor-vscode")
	if n := strings.Count(buf.String(), "cursor-vscode"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "--tool-prefix") {
		t.Errorf("the log does not say how to set the prefix:\n%s", buf.String())
	}
	for i := range 2 * maxUnknownClients {
		s.unknownClient(strings.Repeat("x", i+1))
	}
	if n := s.unknownN.Load(); n != maxUnknownClients {
		t.Errorf("remembered %d names, want at most %d", n, maxUnknownClients)
	}
}
