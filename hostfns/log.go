package hostfns

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"unicode/utf8"
)

// LogEntry is the JSON a guest passes to log: a wasm module's log
// import, a JS tool's console.*, a Python tool's toolhost.log and print.
type LogEntry struct {
	// Level is trace, debug, info, warn (warning) or error; anything else
	// logs at info (ParseLevel).
	Level   string `json:"level"`
	Message string `json:"message"`
}

// MaxLogBytes caps one guest log message, after escaping: a guest that
// logs a megabyte per line fills the host's log and a client's window
// with it; the rest is cut and the message says how much.
const MaxLogBytes = 8 << 10

// runLog is log, for every guest: the entry goes to the host's structured
// log (guestLog), tagged with the tool id (and session and call id during
// execute), as hashicorp/go-plugin re-emits plugin logs through the
// host's logger.
//
//	(import "extism:host/user" "log" (func (param i64) (result i64)))
//
// Parameter: offset of a block holding LogEntry JSON. A block that is not
// JSON is logged whole as an info message, so a guest can log plain text.
// Result: always 0. A script tool's console.* and print send the same
// LogEntry over its host channel.
func runLog(ctx context.Context, c *Call, raw []byte) (any, error) {
	var e LogEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		e = LogEntry{Level: "info", Message: string(raw)}
	}
	c.guestLog(ctx, ParseLevel(e.Level), e.Message)
	return nil, nil
}

// guestLog writes one guest log line, tagged with the tool id and, during
// execute, the session and call id; during execute it also goes to the
// call's client when that shows logs (runtime.Client.Log). The message is
// made one printable line first (CleanLogMessage), whichever guest sent
// it: a guest cannot forge a line of the host's own log.
func (c *Call) guestLog(ctx context.Context, level slog.Level, msg string) {
	msg = CleanLogMessage(msg)
	if c.Context != nil {
		// The client of the call sees it too (MCP notifications/message),
		// at whatever level it asked for.
		c.Context.ClientLog(ctx, level, msg)
	}
	l := c.logger()
	if !l.Enabled(ctx, level) {
		return
	}
	l.Log(ctx, level, msg, c.logAttrs()...)
}

// logAttrs are the slog attributes of every line a host function logs
// about a guest: the tool, source=guest, and during execute the session
// and call. Every engine's guests get the same ones.
func (c *Call) logAttrs() []any {
	attrs := []any{slog.String("tool", c.Tool), slog.String("source", "guest")}
	if c.Context != nil {
		attrs = append(attrs, slog.String("session", c.Context.SessionID), slog.String("call", c.Context.CallID))
	}
	return attrs
}

// CleanLogMessage makes msg one printable line of at most MaxLogBytes
// bytes: line breaks, other control characters (C0, DEL, C1), the Unicode
// line and paragraph separators and the bidirectional controls
// (overrides, isolates and marks), which can make a line read as another
// in a terminal, are written as Go escapes (\n, \x1b, \u202e); bytes that
// are not UTF-8 as \xNN. Tabs stay. What does not fit is cut at a
// character and counted.
func CleanLogMessage(msg string) string {
	if len(msg) <= MaxLogBytes && plainASCII(msg) {
		return msg
	}
	var b strings.Builder
	b.Grow(min(len(msg), MaxLogBytes) + 32)
	run := 0 // start of the printable bytes not yet written
	i := 0
	for i < len(msg) {
		if c := msg[i]; (c >= 0x20 && c < 0x7f) || c == '\t' {
			if b.Len()+i-run+1 > MaxLogBytes {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(msg[i:])
		esc := logEscape(r, size, msg[i])
		n := size
		if esc != "" {
			n = len(esc)
		}
		if b.Len()+i-run+n > MaxLogBytes {
			break
		}
		if esc != "" {
			b.WriteString(msg[run:i])
			b.WriteString(esc)
			run = i + size
		}
		i += size
	}
	b.WriteString(msg[run:i])
	if i < len(msg) {
		fmt.Fprintf(&b, " … (%d more bytes cut)", len(msg)-i)
	}
	return b.String()
}

// logEscape is how CleanLogMessage writes the rune r (size bytes, the
// first of them first): "" keeps it as it is.
func logEscape(r rune, size int, first byte) string {
	switch {
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf(`\x%02x`, first)
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r < 0x20 || (r >= 0x7f && r < 0xa0):
		return fmt.Sprintf(`\x%02x`, r)
	case r == '\u2028' || r == '\u2029' || isBidiControl(r):
		return fmt.Sprintf(`\u%04x`, r)
	}
	return ""
}

// isBidiControl reports whether r is one of Unicode's Bidi_Control
// characters: the embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), which reorder a whole run, and the marks (U+200E,
// U+200F, U+061C), which reorder the digits and punctuation beside them.
func isBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\u200e' || r == '\u200f' || r == '\u061c'
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

// plainASCII reports whether s is printable ASCII and tabs only.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
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
