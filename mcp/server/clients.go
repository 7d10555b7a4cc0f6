package server

import (
	"regexp"
	"strings"
)

// The MCP clients whose tool naming toolhost knows, learnt from each
// client's documentation or source (docs/mcp.md, "Tool names as the client
// sees them", says where). A client is recognised by the name it gives in
// initialize (clientInfo.name): exactly, or by a prefix for the clients
// that append the server's key from their config to it. Their tool names
// are a pattern around the server key: the key a client appended to its
// name when it did (Qwen Code's "qwen-cli-mcp-client-toolhost"), else the
// key the setups in docs/mcp.md use (DefaultServerKey).
//
// Add a client here; clients_test.go checks each row against the name
// and the tool name the client really uses.

// knownClient is how one client names a server's tools.
type knownClient struct {
	// Client is the product's name, for logs and docs.
	Client string
	// Name is clientInfo.name, compared without case. With KeyAfterName
	// it may be followed by "-<server key>".
	Name         string
	KeyAfterName bool
	// Tool is the tool-name prefix, with {key} standing for the server key.
	Tool string
}

// knownClients is the table; the first row that matches wins.
var knownClients = []knownClient{
	// opencode.ai/docs/mcp-servers: tools are "<server>_<tool>".
	{Client: "OpenCode", Name: "opencode", Tool: "{key}_"},
	// Claude Code's docs ("MCP"): mcp__<server>__<tool>.
	{Client: "Claude Code", Name: "claude-code", Tool: "mcp__{key}__"},
	// Qwen Code (0.15): new Client({name: `qwen-cli-mcp-client-${serverName}`})
	// and permission names mcp__<server>__<tool>, the names its model calls.
	{Client: "Qwen Code", Name: "qwen-cli-mcp-client", KeyAfterName: true, Tool: "mcp__{key}__"},
	// Gemini CLI's docs (tools/mcp-server.md, "Tool naming and
	// namespaces"): every MCP tool is mcp_<server>_<tool>.
	{Client: "Gemini CLI", Name: "gemini-cli-mcp-client", KeyAfterName: true, Tool: "mcp_{key}_"},
	// Codex (codex-rs, CODEX_MCP_CLIENT_NAME; MCP_TOOL_NAME_DELIMITER "__"):
	// mcp__<server>__<tool>.
	{Client: "Codex", Name: "codex-mcp-client", Tool: "mcp__{key}__"},
}

// serverKey is what a client may append to its name as the server key:
// the characters clients keep in tool names. Anything else is not taken
// as a key (DefaultServerKey is assumed instead).
var serverKey = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// clientPrefix is the tool-name prefix of the client that calls itself
// name, and whether toolhost knows that client.
func clientPrefix(name string) (prefix string, known bool) {
	name = strings.TrimSpace(name)
	for _, c := range knownClients {
		key, ok := c.match(name)
		if ok {
			return strings.ReplaceAll(c.Tool, "{key}", key), true
		}
	}
	return "", false
}

// match reports whether name is this client's, and the server key to
// name its tools with.
func (c knownClient) match(name string) (key string, ok bool) {
	if strings.EqualFold(name, c.Name) {
		return DefaultServerKey, true
	}
	if !c.KeyAfterName || len(name) <= len(c.Name)+1 || !strings.EqualFold(name[:len(c.Name)+1], c.Name+"-") {
		return "", false
	}
	if k := name[len(c.Name)+1:]; serverKey.MatchString(k) {
		return k, true
	}
	return DefaultServerKey, true
}

// KnownClients lists the clients whose tool names toolhost guesses, with
// the prefix each gets under DefaultServerKey, for `toolhost doctor`.
func KnownClients() []string {
	out := make([]string, 0, len(knownClients))
	for _, c := range knownClients {
		out = append(out, c.Client+" "+strings.ReplaceAll(c.Tool, "{key}", DefaultServerKey))
	}
	return out
}

// maxUnknownClients bounds the names remembered for unknownClient: over
// HTTP every session may give another.
const maxUnknownClients = 64

// unknownClient logs, once per client name, that its tool names are not
// known: descriptions name the tools by their ids, which is wrong when the
// client prefixes them.
func (s *Server) unknownClient(name string) {
	if _, seen := s.unknown.Load(name); seen || s.unknownN.Load() >= maxUnknownClients {
		return
	}
	if _, seen := s.unknown.LoadOrStore(name, true); seen {
		return
	}
	s.unknownN.Add(1)
	s.log.Warn("MCP client not known to toolhost: descriptions name its tools without a prefix; if it calls them otherwise (e.g. mcp__toolhost__read), start toolhost mcp with --tool-prefix or set \"server\": {\"tool_prefix\": …}",
		"client", printable(clip(name)))
}
