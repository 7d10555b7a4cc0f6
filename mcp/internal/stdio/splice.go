package stdio

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strconv"
	"sync"
)

// Splicing: on stdio, the large values of a tools/call result — the
// tool's output and its metadata — are encoded once, by this file, and
// written into the response as it leaves the process, instead of going
// through the SDK's encoding.
//
// Why: the SDK encodes a result in nested MarshalJSON levels (TextContent,
// CallToolResult, the JSON-RPC response), and encoding/json re-scans and
// compacts the output of every level, so a 10 KB output was escaped once
// and then compacted three times: over half of the server's CPU per read
// call (BENCHMARKS.md, "MCP"). The handler now gives the SDK a result whose
// text is a short placeholder; the SDK does everything it did before —
// session checks, middleware, cancellation, progress, batching — on a
// small message; and the writer under the SDK's stdio connection replaces
// each placeholder by the value it stands for.
//
// A placeholder is "toolhost-splice-<token>-<n>", where the token is 128
// random bits drawn when the connection starts and never written out: a
// tool cannot forge one to pull another call's output into its own
// result, since it would have to know the token. A placeholder the writer
// holds no value for (none should exist) is left as it is, never filled
// with something else.
//
// Only connections this package creates over a byte stream splice (stdio);
// Streamable HTTP responses are encoded by the SDK as before.

// spliceMin is the smallest output worth splicing: below it the SDK's
// re-encoding costs less than the bookkeeping.
const spliceMin = 512

// spliceMaxPending bounds the values waiting for their response. A value
// waits from the handler's return to the SDK's write of the response,
// microseconds; should a response never be written (a middleware that
// replaced the result, a write that failed), its value would wait for the
// connection's life, so past this many the handler stops splicing and
// gives the SDK the text itself.
const spliceMaxPending = 256

// Splicer is the writer under one stdio connection. It is safe for
// concurrent use.
type Splicer struct {
	w      io.Writer
	prefix string // "toolhost-splice-<token>-"
	marker []byte // `"` + prefix: how a placeholder starts in encoded JSON

	mu      sync.Mutex
	next    uint64
	pending map[uint64]spliced // placeholder number → the value it stands for
	out     []byte             // the last response written, reused
}

func NewSplicer(w io.Writer) *Splicer {
	var token [16]byte
	_, _ = rand.Read(token[:]) // never fails (crypto/rand's contract since Go 1.24)
	prefix := "toolhost-splice-" + hex.EncodeToString(token[:]) + "-"
	return &Splicer{w: w, prefix: prefix, marker: []byte(`"` + prefix), pending: map[uint64]spliced{}}
}

// Text returns what to put in a result in place of s: a placeholder for
// s as a JSON string, or s itself when it is short or too many values are
// pending. s is escaped when the response is written, straight into it.
func (sp *Splicer) Text(s string) string {
	if len(s) < spliceMin {
		return s
	}
	if p, ok := sp.hold(spliced{text: s}); ok {
		return p
	}
	return s
}

// Value returns a placeholder for the JSON value raw (already encoded),
// or false when too many values are pending.
func (sp *Splicer) Value(raw []byte) (string, bool) { return sp.hold(spliced{raw: raw}) }

// spliced is what a placeholder stands for: a string, to be written as a
// JSON string, or an encoded JSON value.
type spliced struct {
	text string
	raw  []byte
}

func (v spliced) appendTo(dst []byte) []byte {
	if v.raw != nil {
		return append(dst, v.raw...)
	}
	return AppendJSONString(dst, v.text)
}

func (sp *Splicer) hold(v spliced) (string, bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if len(sp.pending) >= spliceMaxPending {
		return "", false
	}
	n := sp.next
	sp.next++
	sp.pending[n] = v
	return sp.prefix + strconv.FormatUint(n, 10), true
}

// Write writes one message (the SDK's stdio connection writes each
// message, newline included, in one Write), with every placeholder it
// holds a value for replaced by that value.
func (sp *Splicer) Write(p []byte) (int, error) {
	if !bytes.Contains(p, sp.marker) {
		return sp.w.Write(p)
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	out := sp.out[:0]
	rest := p
	for {
		i := bytes.Index(rest, sp.marker)
		if i < 0 {
			break
		}
		out = append(out, rest[:i]...)
		rest = rest[i:]
		// `"prefix<n>"`: the digits run to the closing quote.
		digits := rest[len(sp.marker):]
		end := bytes.IndexByte(digits, '"')
		n, err := strconv.ParseUint(string(digits[:max(end, 0)]), 10, 64)
		v, ok := sp.pending[n]
		if end < 0 || err != nil || !ok {
			// Not one of ours to fill: keep it as it is.
			out = append(out, sp.marker...)
			rest = rest[len(sp.marker):]
			continue
		}
		delete(sp.pending, n)
		out = v.appendTo(out)
		rest = digits[end+1:]
	}
	out = append(out, rest...)
	if cap(out) <= 1<<20 {
		sp.out = out // keep a buffer up to 1 MiB for the next response
	}
	if _, err := sp.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
