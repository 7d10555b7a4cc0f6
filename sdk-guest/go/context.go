package tool

import (
	"encoding/json"
	"fmt"
)

// Context is what a running call knows about itself and can ask the host.
type Context struct {
	SessionID string
	MessageID string
	Agent     string
	CallID    string
	// Extra is caller data passed through by the host.
	Extra map[string]any

	// State is small per-session, per-tool storage kept by the host.
	State State
	// Log writes into the host's structured log, tagged with the tool id.
	Log Logger
}

// AskRequest asks the host's permission engine for a permission. Patterns
// are what this call touches (each must be allowed); Always are the
// patterns an "always" answer approves for the rest of the session.
type AskRequest struct {
	Permission string         `json:"permission"`
	Patterns   []string       `json:"patterns"`
	Always     []string       `json:"always,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// Ask blocks until the request is answered. It returns nil when allowed and
// a *PermissionError otherwise; return that error from the handler
// unchanged. The time spent waiting for a person does not count against
// the tool's timeout.
func (c *Context) Ask(req AskRequest) error {
	if req.Patterns == nil {
		req.Patterns = []string{}
	}
	payload, _ := json.Marshal(req)
	resp := callHost(fnAsk, payload)
	var r struct {
		OK    bool   `json:"ok"`
		Kind  string `json:"kind"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return fmt.Errorf("toolhost: malformed ask response: %w", err)
	}
	if r.OK {
		return nil
	}
	return &PermissionError{Kind: r.Kind, Message: r.Error}
}

// Metadata reports live progress to the caller: a title and partial
// metadata, shown while the call runs.
func (c *Context) Metadata(title string, meta map[string]any) {
	payload, _ := json.Marshal(struct {
		Title    string         `json:"title,omitempty"`
		Metadata map[string]any `json:"metadata,omitempty"`
	}{title, meta})
	callHost(fnMetadata, payload)
}

// Config returns a value the user configured for this tool
// ("wasm": {"<tool>": {"config": {"key": "value"}}}); keys configured as
// key_env arrive under key, holding the environment variable's value.
func (c *Context) Config(key string) (string, bool) { return configGet(key) }

// State is per-session, per-tool storage. Values are JSON and should stay
// small (a cursor, a cache key, a counter); instances are pooled, so a
// guest's own memory does not follow a session, but State does.
type State struct{}

// Get decodes the value under key into v and reports whether it existed.
func (State) Get(key string, v any) (bool, error) {
	resp := callHost(fnStateGet, []byte(key))
	if resp == nil {
		return false, nil
	}
	if err := json.Unmarshal(resp, v); err != nil {
		return true, fmt.Errorf("state %q: %w", key, err)
	}
	return true, nil
}

// Set stores v (encoded as JSON) under key; a nil v deletes the key.
func (State) Set(key string, v any) error {
	payload, err := json.Marshal(struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	}{key, v})
	if err != nil {
		return fmt.Errorf("state %q: %w", key, err)
	}
	callHost(fnStateSet, payload)
	return nil
}

// Logger writes to the host's log at a level.
type Logger struct{}

func (Logger) log(level, msg string) {
	payload, _ := json.Marshal(struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	}{level, msg})
	callHost(fnLog, payload)
}

// Debug logs at debug level.
func (l Logger) Debug(msg string) { l.log("debug", msg) }

// Info logs at info level.
func (l Logger) Info(msg string) { l.log("info", msg) }

// Warn logs at warn level.
func (l Logger) Warn(msg string) { l.log("warn", msg) }

// Error logs at error level.
func (l Logger) Error(msg string) { l.log("error", msg) }
