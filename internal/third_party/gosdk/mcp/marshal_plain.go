// Copyright 2026 The toolhost Authors. Added to the Go MCP SDK's mcp
// package by toolhost; see third_party/go-sdk/README.md.

package mcp

import (
	"encoding/json"
	"slices"

	"github.com/toolhost/toolhost/internal/third_party/gosdk/internal/jsonrpc2"
)

// A tool result of the plain shape skips encoding/json when the
// connection encodes a response, too: what marshalPlain writes is already
// compact, and escaped as the generic path escapes it.
func init() {
	jsonrpc2.FastMarshal = func(v any) ([]byte, bool) {
		if r, ok := v.(*CallToolResult); ok && r != nil {
			return r.marshalPlain()
		}
		return nil, false
	}
}

// marshalPlain encodes the common tool result — text content without
// metadata or annotations, `_meta`, isError, the result type, nothing
// else — byte for byte as CallToolResult.MarshalJSON's generic path
// (json.Marshal of its wire struct) does, without reflection over the
// structs or the re-encoding of each nested MarshalJSON's output. It
// reports false for any other result, which takes the generic path.
//
// toolhost patch: the generic path was about a twelfth of the server's
// CPU per tools/call of a small result (toolhost's BENCHMARKS.md, "MCP").
func (x *CallToolResult) marshalPlain() ([]byte, bool) {
	if x.StructuredContent != nil || x.InputRequests != nil || x.RequestState != "" {
		return nil, false
	}
	for _, c := range x.Content {
		t, ok := c.(*TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return nil, false
		}
	}
	b := make([]byte, 0, 256)
	b = append(b, '{')
	if len(x.Meta) > 0 {
		b = append(b, `"_meta":`...)
		var ok bool
		if b, ok = appendPlainMap(b, x.Meta); !ok {
			return nil, false
		}
		b = append(b, ',')
	}
	b = append(b, `"content":`...)
	if x.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range x.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"text","text":`...)
			var ok bool
			if b, ok = appendPlainValue(b, c.(*TextContent).Text); !ok {
				return nil, false
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if x.IsError {
		b = append(b, `,"isError":true`...)
	}
	if x.resultType != "" {
		b = append(b, `,"resultType":`...)
		var ok bool
		if b, ok = appendPlainValue(b, string(x.resultType)); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendPlainMap appends m as encoding/json writes a map[string]any:
// keys sorted, each value as json.Marshal writes it.
func appendPlainMap(b []byte, m map[string]any) ([]byte, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendPlainValue(b, k); !ok {
			return nil, false
		}
		b = append(b, ':')
		if b, ok = appendPlainValue(b, m[k]); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendPlainValue appends v as json.Marshal writes it (HTML escaped, as
// the generic path's json.Marshal writes everything in the result).
func appendPlainValue(b []byte, v any) ([]byte, bool) {
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return append(b, enc...), true
}
