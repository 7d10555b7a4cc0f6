package hostfns

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	extism "github.com/extism/go-sdk"
)

// LogEntry is the JSON a guest passes to log.
type LogEntry struct {
	// Level is debug, info, warn or error; anything else logs at info.
	Level   string `json:"level"`
	Message string `json:"message"`
}

// logEntry writes a guest's log entry into the host's structured log,
// tagged with the tool id (and session and call id during execute), as
// hashicorp/go-plugin re-emits plugin logs through the host's logger.
//
//	(import "extism:host/user" "log" (func (param i64) (result i64)))
//
// Parameter: offset of a block holding LogEntry JSON. A block that is not
// JSON is logged whole as an info message, so a guest can log plain text.
// Result: always 0.
func logEntry(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
	c := callOf(ctx, NameLog)
	raw := readArg(c, NameLog, p, stack)
	var e LogEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		e = LogEntry{Level: "info", Message: string(raw)}
	}
	attrs := []any{slog.String("tool", c.Tool), slog.String("source", "guest")}
	if c.Context != nil {
		attrs = append(attrs, slog.String("session", c.Context.SessionID), slog.String("call", c.Context.CallID))
	}
	c.logger().Log(ctx, ParseLevel(e.Level), e.Message, attrs...)
	stack[0] = 0
}

// ParseLevel maps a guest level name to an slog level; unknown names are
// info.
func ParseLevel(s string) slog.Level {
	switch strings.ToLower(s) {
	case "trace", "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// ExtismLogger adapts a logger for extism.Plugin.SetLogger, so the
// Extism PDKs' own log_* functions land in the same log.
func ExtismLogger(l *slog.Logger, tool string) func(extism.LogLevel, string) {
	return func(level extism.LogLevel, msg string) {
		l.Log(context.Background(), ParseLevel(level.String()), msg, slog.String("tool", tool), slog.String("source", "guest"))
	}
}
