package wasm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/runtime"
)

// A wasm tool may declare what it is through an optional export, traits
// (N_traits for a named tool N), returning a JSON object:
//
//	{"permission": "edit", "patterns_from": ["path"],
//	 "read_only": false, "destructive": true, "idempotent": false, "open_world": false}
//
// Every field is optional. What a module declares is a claim by code
// toolhost cannot vouch for, so it can only add questions, never remove
// one (runtime.Traits.Claimed): a declared permission is asked in addition
// to the tool's own id, a rule written for the tool by name still applies,
// and a module can never declare that it checks its own permission. The
// effect hints only inform MCP clients' annotations.

// declaredTraits is the traits export's JSON.
type declaredTraits struct {
	Permission   string   `json:"permission,omitempty"`
	PatternsFrom []string `json:"patterns_from,omitempty"`
	ReadOnly     bool     `json:"read_only,omitempty"`
	Destructive  bool     `json:"destructive,omitempty"`
	Idempotent   bool     `json:"idempotent,omitempty"`
	OpenWorld    bool     `json:"open_world,omitempty"`
}

// Limits of a declaration: a permission is a short key like the config's,
// patterns come from a few top-level arguments, and a call yields a bounded
// number of patterns of bounded length.
const (
	maxTraitsBytes    = 4 << 10
	maxPatternsFrom   = 8
	maxPatternsOfCall = 64
	maxPatternBytes   = 4 << 10
)

var (
	permissionKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,63}$`) })
	argumentName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`) })
)

// parseTraits decodes and checks a traits export's output. Anything it
// does not understand is an error naming what to fix: a declaration that
// toolhost half-understood would be worse than none.
func parseTraits(out []byte) (*declaredTraits, error) {
	if len(out) > maxTraitsBytes {
		return nil, fmt.Errorf("is %d bytes; a declaration is at most %d", len(out), maxTraitsBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var d declaredTraits
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("is not a traits object (%v); return JSON such as {\"permission\": \"edit\", \"patterns_from\": [\"path\"]} — see docs/abi.md", err)
	}
	if dec.More() {
		return nil, errors.New("holds more than one JSON value; return one object")
	}
	if d.Permission != "" && !permissionKey().MatchString(d.Permission) {
		return nil, fmt.Errorf("declares permission %q; a permission is a lowercase key such as \"edit\" or \"jira\" (letters, digits, _ . -, at most 64)", d.Permission)
	}
	if len(d.PatternsFrom) > maxPatternsFrom {
		return nil, fmt.Errorf("takes patterns from %d arguments; at most %d", len(d.PatternsFrom), maxPatternsFrom)
	}
	for _, a := range d.PatternsFrom {
		if !argumentName().MatchString(a) {
			return nil, fmt.Errorf("takes patterns from %q, which is not an argument name; name top-level arguments of the tool's schema", a)
		}
	}
	if d.ReadOnly && d.Destructive {
		return nil, errors.New("declares read_only and destructive together; a tool that changes nothing destroys nothing")
	}
	return &d, nil
}

// runtimeTraits is what the registry reads for a tool declaring d (nil:
// nothing declared, the zero Traits).
func (d *declaredTraits) runtimeTraits() runtime.Traits {
	tr := runtime.Traits{Claimed: true}
	if d == nil {
		return tr
	}
	tr.Permission = d.Permission
	if len(d.PatternsFrom) > 0 {
		from := d.PatternsFrom
		tr.Patterns = func(args json.RawMessage) []string { return patternsFrom(from, args) }
	}
	if d.ReadOnly || d.Destructive || d.Idempotent || d.OpenWorld {
		tr.Hints = &runtime.Hints{ReadOnly: d.ReadOnly, Destructive: d.Destructive, Idempotent: d.Idempotent, OpenWorld: d.OpenWorld}
	}
	return tr
}

// patternsFrom collects the string values (or strings of an array value)
// of the named top-level arguments. Anything else — arguments that are not
// an object, values of another type, too many or too long — yields no
// pattern for that value; no pattern at all makes the gate ask "*", which
// a rule for the whole tool decides.
func patternsFrom(from []string, args json.RawMessage) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return nil
	}
	var out []string
	add := func(s string) {
		if s != "" && len(s) <= maxPatternBytes && len(out) < maxPatternsOfCall {
			out = append(out, strings.ToValidUTF8(s, "\uFFFD"))
		}
	}
	for _, name := range from {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			add(s)
			continue
		}
		var list []string
		if json.Unmarshal(raw, &list) == nil {
			for _, s := range list {
				add(s)
			}
		}
	}
	return out
}
