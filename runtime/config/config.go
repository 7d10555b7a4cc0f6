package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Config is the merged configuration. Every field's comment is its user
// documentation; defaults live in Default and the
// Default… constants, nowhere else.
type Config struct {
	// Schema is ignored; editors use it to find the JSON Schema.
	Schema string `json:"$schema,omitempty"`

	// Permission holds the user's permission rules, in file order:
	// "permission": {"bash": {"*": "ask", "git *": "allow"}, "edit": "deny"}.
	// A single action ("allow") applies to every permission.
	Permission permission.Config `json:"permission,omitzero"`

	// Agent defines agents or overrides built-in ones (build, plan,
	// explore): "agent": {"review": {"mode": "subagent", "permission": {...}}}.
	Agent map[string]AgentConfig `json:"agent,omitempty"`

	// DefaultAgent is the agent used when none is named. Default "build".
	DefaultAgent string `json:"default_agent,omitempty"`

	// Model is the default model id for the agent loop ("gpt-4.1",
	// "ollama/qwen3"); tool filtering also depends on it.
	Model string `json:"model,omitempty"`

	// ToolOutput sets the truncation limits applied to every tool's output.
	ToolOutput ToolOutput `json:"tool_output,omitzero"`

	// Instructions are the file names the read tool looks for, in order of
	// preference, in the directory of each file it reads and in the
	// directories above it up to the project root; the first found in a
	// directory is shown to the model once per session, after the file's
	// content. Plain names only: "instructions": ["AGENTS.md",
	// "CONTRIBUTING.md"]. Default ["AGENTS.md", "CLAUDE.md"]; [] turns
	// this off.
	Instructions []string `json:"instructions,omitempty"`

	// Tools enables (true) or disables (false) tools by id or wildcard:
	// "tools": {"webfetch": false, "mcp_*": false}.
	Tools map[string]bool `json:"tools,omitempty"`

	// Experimental switches on tools that are off by default.
	Experimental Experimental `json:"experimental,omitzero"`

	// Bash configures the bash tool.
	Bash Bash `json:"bash,omitzero"`

	// Sandbox confines the bash tool's commands with the kernel (Linux
	// Landlock), beneath the permission rules: "sandbox": {"writable":
	// ["/srv/data"], "network": false}.
	Sandbox Sandbox `json:"sandbox,omitzero"`

	// Wasm grants capabilities and limits to wasm and JS tools, keyed by
	// tool id or module (file) name: "wasm": {"jira": {"allowed_hosts":
	// [...]}}. A module's tools are sandboxed with no file, network,
	// environment or clock access unless granted here. A grant reaches
	// only the tools of the config that makes it: your own config your
	// own tool folders, a project's config the project's; a key that is a
	// path grants that one file ("wasm": {"/src/p/.toolhost/tool/jira.wasm":
	// {…}}), how your own config grants a project's tool (docs/security.md).
	Wasm map[string]WasmConfig `json:"wasm,omitempty"`

	// Compat says which other agents' files toolhost also reads:
	// "compat": {"opencode": false} ignores OpenCode's tool folders.
	Compat Compat `json:"compat,omitzero"`

	// MCP lists MCP servers whose tools join the registry as <server>_<tool>.
	MCP map[string]MCPServer `json:"mcp,omitempty"`

	// Plugin lists plugin packages: "oci://…", "https://…", "./vendor/x".
	Plugin []string `json:"plugin,omitempty"`

	// Provider configures OpenAI-compatible endpoints for the agent loop.
	Provider map[string]Provider `json:"provider,omitempty"`

	// Search configures the websearch and codesearch tools; absent means
	// those tools are not offered.
	Search *Search `json:"search,omitempty"`

	// LSP configures the language servers whose errors the edit tools
	// report, in OpenCode's shape: absent uses the built-in servers whose
	// binaries are on PATH (BuiltinLSPServers); "lsp": false turns them
	// all off; "lsp": {"gopls": {"disabled": true}} turns one off;
	// "lsp": {"gopls": {"command": ["/opt/gopls"]}} overrides one; a new
	// name adds a server, which must name its "extensions". See lsp.go.
	LSP LSPConfig `json:"lsp,omitzero"`

	// Trust configures plugin signature verification.
	Trust Trust `json:"trust,omitzero"`

	// PluginLimits bounds the plugin packages `toolhost plugin add`
	// downloads: "plugin_limits": {"max_archive_bytes": 209715200}.
	PluginLimits PluginLimits `json:"plugin_limits,omitzero"`

	// Store chooses where session state lives (approvals, read stamps,
	// todos, tool state, transcripts, parked questions). Absent: a bbolt
	// file in the data directory, shared by the toolhost processes of one
	// machine. A PostgreSQL URL shares it between machines — replicas of
	// `toolhost mcp --http` behind a load balancer:
	// "store": {"url": "postgres://toolhost:{env:PGPASSWORD}@db:5432/toolhost"}.
	// The environment variable TOOLHOST_STORE_URL overrides the url.
	Store Store `json:"store,omitzero"`

	// Server configures `toolhost mcp`, toolhost serving its tools to MCP
	// clients: "server": {"ask_fallback": "allow", "tool_prefix": "th_"}.
	Server Server `json:"server,omitzero"`

	// origins maps each key path a source set to where it was set last
	// (Origin); nil for a config no file set anything in.
	origins map[string]origin

	// grants binds "wasm" grants to the tool files their config may
	// grant (grants.go); placed is false for a Config built in code.
	grants grantPlaces

	// heldAgents are the agents only an untrusted project's config names
	// (OnlyHeldAgent).
	heldAgents []string

	// refs are the {env:…} and {file:…} references the sources expanded
	// (ReferencesBy).
	refs []substitution
}

// Origin returns where the key path was last set: the file (or
// environment variable) and its 1-based line, ok false when no source set
// it. Origin("tools", "webfetch") is the line of "webfetch" inside "tools";
// Origin("agent", "plan", "tools", "bash") the same inside an agent. Use it
// to point a problem found after loading — a key naming a tool the host
// does not have — at the line to fix.
func (c *Config) Origin(path ...string) (source string, line int, ok bool) {
	o, ok := c.origins[pathKey(path)]
	return o.source, o.line, ok
}

// Store configures the session store.
type Store struct {
	// URL is a postgres:// (or postgresql://) connection URL; toolhost
	// creates and migrates its tables there. Query parameters other than
	// connection settings become session settings: "?search_path=toolhost"
	// keeps the tables in a schema of their own. Empty: the local bbolt
	// file.
	URL string `json:"url,omitempty"`
	// ListenURL, when set, is the connection PostgreSQL's LISTEN uses
	// instead of url: behind PgBouncer in transaction pooling, url goes
	// through PgBouncer and listen_url straight to PostgreSQL (or to a
	// session-pooling PgBouncer), since a LISTEN holds its connection.
	// TOOLHOST_STORE_LISTEN_URL overrides it.
	ListenURL string `json:"listen_url,omitempty"`
	// Migrate false leaves the schema to `toolhost migrate`: a replica
	// then needs no CREATE privilege, and refuses to start on a schema
	// that is behind, saying to run it. Default true: the first replica
	// to start migrates. TOOLHOST_STORE_MIGRATE=false overrides it.
	Migrate *bool `json:"migrate,omitempty"`
	// Retention is how long a session's state is kept after its last
	// write, as a Go duration ("720h"), at least 1h; "0" keeps it
	// forever. Default 720h (30 days). A sweep on one replica at a time
	// deletes the rest.
	Retention string `json:"retention,omitempty"`
	// StartWait is how long a starting process keeps trying to reach the
	// database before it gives up and exits, as a Go duration. Default
	// "30s"; "0" tries once.
	StartWait string `json:"start_wait,omitempty"`
}

// EnvStoreURL overrides "store": {"url"}; a deployment keeps the URL, and
// the password in it, in a secret rather than a config file.
const EnvStoreURL = "TOOLHOST_STORE_URL"

// StoreURL is the session store URL in effect: env's TOOLHOST_STORE_URL,
// else the config's store.url, else "" (the local bbolt file).
func (c *Config) StoreURL(env func(string) string) string {
	if env != nil {
		if u := env(EnvStoreURL); u != "" {
			return u
		}
	}
	return c.Store.URL
}

// CheckStoreURL refuses a store URL toolhost cannot use, without quoting it:
// it may hold a password.
func CheckStoreURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("is not a URL; want postgres://user:password@host:5432/database")
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return fmt.Errorf("has scheme %q; want postgres://user:password@host:5432/database (leave store out for the local file)", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("names no host; want postgres://user:password@host:5432/database")
	}
	return nil
}

// The values Server.AskFallback accepts.
const (
	AskFallbackDeny  = "deny"
	AskFallbackAllow = "allow"
	AskFallbackInbox = "inbox"
)

// Server configures the MCP server (`toolhost mcp`). Flags of the command
// override it.
type Server struct {
	// AskFallback is what a permission rule's "ask" becomes when the MCP
	// client cannot show the question (it does not support elicitation, as
	// OpenCode, Qwen Code and the MCP Inspector do not): "deny" (default)
	// refuses the call with the rule to add; "allow" lets it run, leaving
	// the approval to the client's own permission prompt; "inbox" parks
	// the question in the permission inbox, a web page where a person
	// answers it while the call waits (docs/inbox.md). Rules that say
	// "deny" deny either way, and a client that can elicit is always asked.
	AskFallback string `json:"ask_fallback,omitempty" jsonschema:"enum=deny,enum=allow,enum=inbox"`

	// RequireRead refuses to overwrite or edit an existing file the MCP
	// session has not read with toolhost's read tool. Default true. Turn it
	// off for clients whose models read files with the client's own read
	// tool; a file read through toolhost and changed since is refused
	// either way.
	RequireRead *bool `json:"require_read,omitempty"`

	// ToolPrefix is what the client puts before a tool's id to name it
	// (OpenCode, configured with the server key "toolhost", calls read
	// "toolhost_read"). Descriptions, hints and errors name tools this way.
	// Default: chosen from the client's name when toolhost knows the
	// client and the server key is "toolhost" (OpenCode "toolhost_",
	// Claude Code "mcp__toolhost__"), else none. Set it when the key
	// differs: "tool_prefix": "th_".
	ToolPrefix *string `json:"tool_prefix,omitempty"`

	// InboxNotify shows a desktop notification (notify-send, osascript)
	// when a question starts waiting in the permission inbox, for
	// `toolhost mcp` and `toolhost run`. Default true; false turns them
	// off. Without a notifier nothing is shown and the question waits
	// all the same (docs/inbox.md).
	InboxNotify *bool `json:"inbox_notify,omitempty"`
}

// NotifyInbox reports whether the inbox shows desktop notifications.
func (s Server) NotifyInbox() bool { return s.InboxNotify == nil || *s.InboxNotify }

// ReadRequired reports whether RequireRead is on (the default).
func (s Server) ReadRequired() bool { return s.RequireRead == nil || *s.RequireRead }

// ToolOutput bounds what the model sees of one tool call's output.
type ToolOutput struct {
	// MaxLines kept before truncation. Default 2000.
	MaxLines int `json:"max_lines,omitempty" jsonschema:"minimum=0"`
	// MaxBytes kept before truncation. Default 51200 (50 KB).
	MaxBytes int `json:"max_bytes,omitempty" jsonschema:"minimum=0"`
}

// Experimental holds feature flags.
type Experimental struct {
	// BatchTool offers the batch tool (up to 25 concurrent calls).
	BatchTool bool `json:"batch_tool,omitempty"`
	// LSPTool offers the lsp diagnostics tool.
	LSPTool bool `json:"lsp_tool,omitempty"`
}

// Bash configures the bash tool.
type Bash struct {
	// TimeoutMS is the default command timeout. Default 120000 (2 minutes).
	TimeoutMS int `json:"timeout_ms,omitempty" jsonschema:"minimum=0"`
	// Shell overrides the shell; default $SHELL if it is bash, else bash,
	// else sh.
	Shell string `json:"shell,omitempty"`
}

// AgentConfig defines or overrides an agent.
type AgentConfig struct {
	// Description says what the agent is for; other agents read it when
	// choosing a subagent.
	Description string `json:"description,omitempty"`
	// Mode is primary, subagent or all. Default all.
	Mode string `json:"mode,omitempty" jsonschema:"enum=primary,enum=subagent,enum=all"`
	// Model overrides Config.Model for this agent.
	Model string `json:"model,omitempty"`
	// Prompt is the agent's system prompt; "{file:./review.md}" reads it
	// from a file.
	Prompt string `json:"prompt,omitempty"`
	// Permission rules for this agent, applied after the defaults and
	// before the user's top-level rules.
	Permission permission.Config `json:"permission,omitzero"`
	// Temperature for the model, 0 to 2; absent means the model's default.
	Temperature *float64 `json:"temperature,omitempty" jsonschema:"minimum=0,maximum=2"`
	// Tools enables or disables tools for this agent, like Config.Tools.
	Tools map[string]bool `json:"tools,omitempty"`
	// Disable removes the agent, built-in ones included.
	Disable bool `json:"disable,omitempty"`
	// MaxSteps caps the agent loop's model calls per turn; 0 means no cap.
	MaxSteps int `json:"max_steps,omitempty" jsonschema:"minimum=0"`
}

// WasmConfig grants capabilities and sets limits for a wasm tool. Fields map
// to Extism manifest fields.
type WasmConfig struct {
	// AllowedHosts the guest may reach over HTTP ("api.example.com",
	// "*.example.com"). Loopback, private and link-local addresses are
	// refused unless listed themselves.
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
	// AllowedPaths maps host paths to guest paths; prefix "ro:" for
	// read-only: {"ro:.": "/project"}. Relative host paths resolve against
	// the project root.
	AllowedPaths map[string]string `json:"allowed_paths,omitempty"`
	// Config is passed to the guest (Extism config). A key ending in _env
	// names an environment variable whose value is passed instead, under
	// the key without the suffix.
	Config map[string]string `json:"config,omitempty"`
	// TimeoutMS per call, counting only the guest's own running time.
	// Default 60000.
	TimeoutMS int `json:"timeout_ms,omitempty" jsonschema:"minimum=0"`
	// MemoryMaxMB caps the guest's linear memory. Default 256.
	MemoryMaxMB int `json:"memory_max_mb,omitempty" jsonschema:"minimum=0"`
	// MaxOutputMB caps the raw output before truncation. Default 10.
	MaxOutputMB int `json:"max_output_mb,omitempty" jsonschema:"minimum=0"`
	// Env passes these environment variables to the guest (WASI).
	Env []string `json:"env,omitempty"`
	// Sampling lets the tool ask the model of the MCP client it is called
	// from (the sample host function), which spends the user's model
	// budget. Default false: refused.
	Sampling bool `json:"sampling,omitempty"`
}

// MCPServer is an MCP server whose tools join the registry.
type MCPServer struct {
	// Type is local (a command speaking stdio) or remote (Streamable HTTP).
	Type string `json:"type" jsonschema:"required,enum=local,enum=remote"`
	// Command starts a local server: ["npx", "-y", "my-mcp-server"].
	Command []string `json:"command,omitempty"`
	// Environment is added to a local server's environment.
	Environment map[string]string `json:"environment,omitempty"`
	// URL of a remote server.
	URL string `json:"url,omitempty"`
	// Headers sent to a remote server:
	// {"Authorization": "Bearer {env:TOKEN}"}.
	Headers map[string]string `json:"headers,omitempty"`
	// Enabled defaults to true.
	Enabled *bool `json:"enabled,omitempty"`
	// Timeout in milliseconds to start and list tools. Default 5000.
	Timeout int `json:"timeout,omitempty" jsonschema:"minimum=0"`
}

// Provider is an OpenAI-compatible endpoint.
type Provider struct {
	// BaseURL of the endpoint ("http://127.0.0.1:11434/v1"); empty means
	// the client library's default.
	BaseURL string `json:"base_url,omitempty"`
	// APIKey, or APIKeyEnv naming the variable that holds it.
	APIKey    string `json:"api_key,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// Strict turns on OpenAI strict function schemas.
	Strict bool `json:"strict,omitempty"`
	// Models lists model ids served by this provider.
	Models []string `json:"models,omitempty"`
}

// Search configures websearch/codesearch (Exa-compatible MCP endpoint).
type Search struct {
	// Endpoint is the MCP endpoint URL.
	Endpoint string `json:"endpoint,omitempty"`
	// APIKey, or APIKeyEnv naming the variable that holds it.
	APIKey    string `json:"api_key,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
}

// Trust configures plugin signatures.
type Trust struct {
	// Keys are the public keys plugin signatures are checked against.
	Keys []string `json:"keys,omitempty"`
	// RequireSignatures refuses plugins without a valid signature.
	RequireSignatures bool `json:"require_signatures,omitempty"`
}

// PluginLimits bounds plugin packages.
type PluginLimits struct {
	// MaxArchiveBytes is the largest plugin package, in bytes, that
	// `toolhost plugin add` (and update, and installing locked plugins)
	// accepts: an https download, an OCI artifact's layers, a local
	// archive or a packed directory. A larger one is refused before
	// anything is written to the plugin cache. Default 104857600 (100 MB).
	MaxArchiveBytes int64 `json:"max_archive_bytes,omitempty" jsonschema:"minimum=0"`
}

// ArchiveBytes is MaxArchiveBytes, or DefaultPluginMaxArchiveBytes when
// unset.
func (l PluginLimits) ArchiveBytes() int64 {
	if l.MaxArchiveBytes > 0 {
		return l.MaxArchiveBytes
	}
	return DefaultPluginMaxArchiveBytes
}

// Defaults, in one place.
const (
	// DefaultPluginMaxArchiveBytes is PluginLimits.MaxArchiveBytes's
	// default: 100 MB.
	DefaultPluginMaxArchiveBytes = 100 << 20
	DefaultMaxLines              = 2000
	DefaultMaxBytes              = 50 * 1024
	DefaultBashTimeoutMS         = 120_000
	DefaultAgent                 = "build"
	DefaultWasmTimeoutMS         = 60_000
	DefaultWasmMemoryMB          = 256
	DefaultWasmOutputMB          = 10
	DefaultMCPTimeoutMS          = 5000
)

// Default returns the built-in defaults as a Config: what Load returns when
// no config file exists, and the base every file is merged onto. Each call
// returns a fresh value the caller may change.
func Default() *Config {
	return &Config{
		DefaultAgent: DefaultAgent,
		ToolOutput:   ToolOutput{MaxLines: DefaultMaxLines, MaxBytes: DefaultMaxBytes},
		Bash:         Bash{TimeoutMS: DefaultBashTimeoutMS},
	}
}

// DefaultInstructions is Config.Instructions's default: OpenCode's
// instruction file, then Claude Code's as a fallback.
func DefaultInstructions() []string { return []string{"AGENTS.md", "CLAUDE.md"} }

// InstructionFiles returns the instruction file names the read tool looks
// for: Instructions when set (an empty list turns the feature off),
// DefaultInstructions otherwise. A nil Config has the defaults.
func (c *Config) InstructionFiles() []string {
	if c == nil || c.Instructions == nil {
		return DefaultInstructions()
	}
	return c.Instructions
}

// Lines returns the configured line limit or the default.
func (t ToolOutput) Lines() int {
	if t.MaxLines > 0 {
		return t.MaxLines
	}
	return DefaultMaxLines
}

// Bytes returns the configured byte limit or the default.
func (t ToolOutput) Bytes() int {
	if t.MaxBytes > 0 {
		return t.MaxBytes
	}
	return DefaultMaxBytes
}

// RawJSON is kept so callers can re-encode the merged config.
type RawJSON = json.RawMessage
