package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// editPluginList adds or removes ref in the "plugin" list of a config
// file, keeping its comments, member order and indentation. The edit is a
// JSON Patch applied by hujson, which keeps comments but leaves the new
// element unindented ("},"plugin":[…]" on the line of the last member);
// layoutInserted then gives it the whitespace its siblings have.
func editPluginList(file, ref string, add bool) error {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		if !add {
			return nil
		}
		data = []byte("{\n}\n")
	} else if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	out, err := patchPluginList(data, ref, add)
	if err != nil {
		return fmt.Errorf("edit %s: %w; fix the file by hand or add the reference to \"plugin\" yourself", file, err)
	}
	if bytes.Equal(out, data) {
		return nil
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}

// patchPluginList returns data with ref added to (or removed from) the
// top-level "plugin" list; data unchanged when there is nothing to do.
func patchPluginList(data []byte, ref string, add bool) ([]byte, error) {
	if !utf8.ValidString(ref) {
		return nil, fmt.Errorf("the reference %q is not valid UTF-8", ref)
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, err
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("the config is not a JSON object")
	}
	std := v.Clone()
	std.Standardize()
	var cur struct {
		Plugin *[]string `json:"plugin"`
	}
	if err := json.Unmarshal(std.Pack(), &cur); err != nil {
		return nil, fmt.Errorf(`"plugin" must be a list of references: %w`, err)
	}
	idx := -1
	if cur.Plugin != nil {
		for i, r := range *cur.Plugin {
			if r == ref {
				idx = i
			}
		}
	}
	refJSON, _ := json.Marshal(ref)
	var patch string
	switch {
	case add && idx >= 0, !add && idx < 0:
		return data, nil
	case add && cur.Plugin == nil:
		patch = fmt.Sprintf(`[{"op":"add","path":"/plugin","value":[%s]}]`, refJSON)
	case add:
		patch = fmt.Sprintf(`[{"op":"add","path":"/plugin/-","value":%s}]`, refJSON)
	default:
		patch = fmt.Sprintf(`[{"op":"remove","path":"/plugin/%d"}]`, idx)
	}
	var list *hujson.Array
	for _, m := range root.Members {
		if name, ok := m.Name.Value.(hujson.Literal); ok && name.String() == "plugin" {
			list, _ = m.Value.Value.(*hujson.Array)
		}
	}
	comp, closing := hujson.ValueTrimmed(root), &root.AfterExtra
	if list != nil {
		comp, closing = list, &list.AfterExtra
	}
	trailingComma := hasTrailingComma(comp)
	closeIndent := indentOf(*closing)
	if err := v.Patch([]byte(patch)); err != nil {
		return nil, err
	}
	if add {
		layoutInserted(comp, length(comp)-1)
		if trailingComma {
			setTrailingComma(comp)
		}
	}
	// What the patch moved before the closing bracket (a removed line's
	// comment, the last line's indentation) must not move the bracket.
	if closeIndent != nil {
		if n := bytes.LastIndexByte(*closing, '\n'); n >= 0 {
			*closing = append((*closing)[:n+1:n+1], closeIndent...)
		}
	}
	return v.Pack(), nil
}

// layoutInserted gives the member or element at i of an object or array
// (just appended) the layout of its siblings: on its own line at their
// indentation when they are one per line, else after a space. Comments
// the patch moved in front of it (a trailing comment of the previous
// line) stay where they were.
func layoutInserted(comp hujson.ValueTrimmed, i int) {
	var before []*hujson.Extra // each sibling's leading whitespace, in order
	var valueGap *hujson.Extra // object: the whitespace between ':' and the new value
	gapLike := hujson.Extra(" ")
	multiline := false // an empty container: one per line if it spans lines
	switch c := comp.(type) {
	case *hujson.Object:
		for j := range c.Members {
			before = append(before, &c.Members[j].Name.BeforeExtra)
		}
		valueGap = &c.Members[i].Value.BeforeExtra
		multiline = bytes.ContainsRune(c.AfterExtra, '\n')
		if i > 0 {
			gapLike = c.Members[i-1].Value.BeforeExtra
		}
	case *hujson.Array:
		for j := range c.Elements {
			before = append(before, &c.Elements[j].BeforeExtra)
		}
		multiline = bytes.ContainsRune(c.AfterExtra, '\n')
	default:
		return
	}
	if i < 0 || i >= len(before) {
		return
	}
	own := bytes.TrimRight(*before[i], " \t\r\n")
	sep := []byte(" ")
	if i == 0 {
		sep = nil // "[x]": nothing to copy, keep it tight
		if multiline {
			sep = []byte("\n  ")
		}
	}
	if i > 0 {
		prev := *before[i-1]
		if n := bytes.LastIndexByte(prev, '\n'); n >= 0 {
			sep = append([]byte("\n"), prev[n+1:]...)
		} else if i > 1 {
			sep = prev
		}
	}
	if bytes.Contains(own, []byte("//")) && !bytes.HasPrefix(sep, []byte("\n")) {
		sep = append([]byte("\n"), sep...) // a line comment needs its line end
	}
	*before[i] = append(append(hujson.Extra{}, own...), sep...)
	if valueGap != nil && len(bytes.TrimSpace(*valueGap)) == 0 {
		*valueGap = hujson.Extra(" ")
		if len(bytes.Trim(gapLike, " \t")) == 0 {
			*valueGap = append(hujson.Extra{}, gapLike...) // "a":1 or "a":  1
		}
	}
}

// indentOf returns what follows the last line end of x (the indentation
// of the next token), or nil when x has no line end.
func indentOf(x hujson.Extra) []byte {
	n := bytes.LastIndexByte(x, '\n')
	if n < 0 {
		return nil
	}
	return append([]byte{}, x[n+1:]...)
}

// length is the number of members or elements of comp.
func length(comp hujson.ValueTrimmed) int {
	switch c := comp.(type) {
	case *hujson.Object:
		return len(c.Members)
	case *hujson.Array:
		return len(c.Elements)
	}
	return 0
}

// lastValue is the value after which a trailing comma would stand.
func lastValue(comp hujson.ValueTrimmed) *hujson.Value {
	switch c := comp.(type) {
	case *hujson.Object:
		if len(c.Members) > 0 {
			return &c.Members[len(c.Members)-1].Value
		}
	case *hujson.Array:
		if len(c.Elements) > 0 {
			return &c.Elements[len(c.Elements)-1]
		}
	}
	return nil
}

// hasTrailingComma says the last member is followed by a comma (hujson
// marks it by a non-nil AfterExtra on the last value).
func hasTrailingComma(comp hujson.ValueTrimmed) bool {
	last := lastValue(comp)
	return last != nil && last.AfterExtra != nil
}

// setTrailingComma puts a comma after the last member.
func setTrailingComma(comp hujson.ValueTrimmed) {
	if last := lastValue(comp); last != nil && last.AfterExtra == nil {
		last.AfterExtra = hujson.Extra{}
	}
}
