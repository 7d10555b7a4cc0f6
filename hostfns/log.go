package hostfns

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"strings"
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
func logEntry(ctx context.Context, stack []uint64) {
	c := callOf(ctx, NameLog)
	raw := readArg(c, NameLog, stack)
	var e LogEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		e = LogEntry{Level: "info", Message: string(raw)}
	}
	c.guestLog(ctx, ParseLevel(e.Level), e.Message)
	stack[0] = 0
}

// guestLog writes one guest log line, tagged with the tool id and, during
// execute, the session and call id; during execute it also goes to the
// call's client when that shows logs (runtime.Client.Log).
func (c *Call) guestLog(ctx context.Context, level slog.Level, msg string) {
	if c.Context != nil {
		// The client of the call sees it too (MCP notifications/message),
		// at whatever level it asked for.
		c.Context.ClientLog(ctx, level, msg)
	}
	l := c.logger()
	if !l.Enabled(ctx, level) {
		return
	}
	attrs := []any{slog.String("tool", c.Tool), slog.String("source", "guest")}
	if c.Context != nil {
		attrs = append(attrs, slog.String("session", c.Context.SessionID), slog.String("call", c.Context.CallID))
	}
	l.Log(ctx, level, msg, attrs...)
}

// clientLogs says whether the call's client shows logs.
func (c *Call) clientLogs() bool {
	return c.Context != nil && c.Context.Client.Log != nil
}

// LevelTrace is the slog level of Extism's log_trace: below debug, so a
// handler at debug does not show it.
const LevelTrace = slog.LevelDebug - 4

// extismLevels are Extism's log levels, lowest first, in the order of the
// numbers get_log_level returns (0 trace … 4 error).
var extismLevels = []struct {
	name  string
	level slog.Level
}{
	{NameLogTrace, LevelTrace},
	{NameLogDebug, slog.LevelDebug},
	{NameLogInfo, slog.LevelInfo},
	{NameLogWarn, slog.LevelWarn},
	{NameLogError, slog.LevelError},
}

// extismLog is Extism's log_<level>: every Extism PDK's logging (the Go
// PDK's pdk.Log, the Rust PDK's info!, console.log in the JS PDK …). The
// message goes to the call's logger like log's, at the function's level;
// toolhost, not a process-wide Extism setting, decides what is kept.
//
//	(import "extism:host/env" "log_info" (func (param i64)))
//
// Parameter: offset of a block holding the message as UTF-8 text; the host
// frees it, as Extism's does.
func extismLog(name string, level slog.Level) func(ctx context.Context, stack []uint64) {
	return func(ctx context.Context, stack []uint64) {
		c := callOf(ctx, name)
		if !c.logger().Enabled(ctx, level) && !c.clientLogs() {
			if c.Memory != nil {
				c.Memory.Free(stack[0])
			}
			return
		}
		msg := readArg(c, name, stack)
		c.Memory.Free(stack[0])
		c.guestLog(ctx, level, string(msg))
	}
}

// getLogLevel tells a guest the lowest Extism level the call's logger
// keeps, so PDKs skip formatting messages nobody will read.
//
//	(import "extism:host/env" "get_log_level" (func (result i32)))
//
// Result: 0 trace, 1 debug, 2 info, 3 warn, 4 error, or 2147483647 when
// the logger keeps none of them (Extism's "off").
func getLogLevel(ctx context.Context, stack []uint64) {
	c := callOf(ctx, NameGetLogLevel)
	if c.clientLogs() {
		stack[0] = 1 // debug: the client chooses its own level
		return
	}
	stack[0] = uint64(uint32(ExtismLevel(ctx, c.logger())))
}

// ExtismLevel returns the Extism number (0 trace … 4 error, MaxInt32 off)
// of the lowest level l is enabled for.
func ExtismLevel(ctx context.Context, l *slog.Logger) int32 {
	for i, lv := range extismLevels {
		if l.Enabled(ctx, lv.level) {
			return int32(i)
		}
	}
	return math.MaxInt32
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
