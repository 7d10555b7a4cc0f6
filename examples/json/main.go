//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen

// Command json is a toolhost wasm module with three named tools, built as
// json.wasm: json_format pretty-prints JSON, json_minify compacts it, and
// json_query extracts a value by path. Models are bad at counting braces;
// these make JSON handling exact.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

// FormatArgs are json_format's arguments.
type FormatArgs struct {
	JSON   string `json:"json" jsonschema:"description=The JSON text to format"`
	Indent int    `json:"indent,omitempty" jsonschema:"description=Spaces per level (default 2)"`
}

// MinifyArgs are json_minify's arguments.
type MinifyArgs struct {
	JSON string `json:"json" jsonschema:"description=The JSON text to minify"`
}

// QueryArgs are json_query's arguments.
type QueryArgs struct {
	JSON string `json:"json" jsonschema:"description=The JSON document"`
	Path string `json:"path" jsonschema:"description=Dot path to the value: items.0.name; empty for the whole document"`
}

var _ = tool.Define("format", "Pretty-print a JSON document with consistent indentation. Fails with the position of the first syntax error when the input is not valid JSON.",
	func(ctx *tool.Context, a FormatArgs) (tool.Result, error) {
		indent := a.Indent
		if indent <= 0 {
			indent = 2
		}
		var out bytes.Buffer
		if err := json.Indent(&out, []byte(a.JSON), "", strings.Repeat(" ", indent)); err != nil {
			return tool.Result{}, syntaxError(a.JSON, err)
		}
		return tool.Result{Output: out.String(), Title: fmt.Sprintf("%d bytes", out.Len())}, nil
	})

var _ = tool.Define("minify", "Remove all insignificant whitespace from a JSON document.",
	func(ctx *tool.Context, a MinifyArgs) (tool.Result, error) {
		var out bytes.Buffer
		if err := json.Compact(&out, []byte(a.JSON)); err != nil {
			return tool.Result{}, syntaxError(a.JSON, err)
		}
		return tool.Text(out.String()), nil
	})

var _ = tool.Define("query", "Extract one value from a JSON document by a dot path (object keys and array indexes: items.0.name). Returns the value as JSON.",
	func(ctx *tool.Context, a QueryArgs) (tool.Result, error) {
		var doc any
		dec := json.NewDecoder(strings.NewReader(a.JSON))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return tool.Result{}, syntaxError(a.JSON, err)
		}
		v, err := lookup(doc, a.Path)
		if err != nil {
			return tool.Result{}, err
		}
		out, _ := json.MarshalIndent(v, "", "  ")
		return tool.Result{Output: string(out), Title: a.Path}, nil
	})

// lookup follows a dot path through decoded JSON.
func lookup(v any, path string) (any, error) {
	if path == "" {
		return v, nil
	}
	walked := ""
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[part]
			if !ok {
				return nil, fmt.Errorf("no key %q at %s; keys there: %s", part, where(walked), strings.Join(keys(x), ", "))
			}
			v = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("%s is an array of %d items; %q is not an index in it", where(walked), len(x), part)
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("%s is a %T, not an object or array; cannot look up %q", where(walked), x, part)
		}
		walked = strings.TrimPrefix(walked+"."+part, ".")
	}
	return v, nil
}

func where(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, strconv.Quote(k))
	}
	sort.Strings(out)
	return out
}

// syntaxError names the line and column of a JSON syntax error.
func syntaxError(src string, err error) error {
	// json.Indent and json.Compact do not report where the error is;
	// decoding does.
	var v any
	if uerr := json.Unmarshal([]byte(src), &v); uerr != nil {
		err = uerr
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + strings.Count(src[:se.Offset], "\n")
		col := int(se.Offset) - strings.LastIndex(src[:se.Offset], "\n") - 1
		return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, err)
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

func main() {}
