package hostfns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Func is a host function an embedder adds: Go code its guests — wasm
// modules and JS and Python tools alike — call by name through NameCall,
// governed by a permission like any other. A is its argument and R its
// result; each crosses as JSON (encoding/json), so their Go types are the
// JSON shapes guests see.
//
// What toolhost guarantees for every call, before Run: the function
// exists (an unknown name is an error answer), the argument decodes into
// A strictly (unknown fields and trailing data are refused), and the
// call's permission engine allows Permission for the patterns — rules,
// session approvals scoped to the calling tool, and the asker when a rule
// says "ask", exactly as a guest's own ask. A refusal never runs Run.
// Run runs in the host process, outside the guest's sandbox, with the
// host's privileges: it is the embedder's code and must check its
// argument as any input from a tool.
type Func[A, R any] struct {
	// Name is what guests call it by: a lowercase letter, then up to 63
	// lowercase letters, digits and underscores. toolhost's own host
	// function names (Reserved) are refused.
	Name string
	// Permission is the permission each call is checked against
	// ("weather": {"*": "allow", "mars": "deny"} in the config's
	// "permission"). Required: a host function nothing governs would
	// let any tool reach what the embedder guards.
	Permission string
	// Patterns are what one call touches, each matched against the
	// permission's rules and offered for "always" when a person is asked.
	// Nil, or an empty answer, means {"*"}.
	Patterns func(args A) []string
	// Description says what the function does, for the people who write
	// the guests; toolhost does not show it to a model.
	Description string
	// Run does the work once the call is allowed. Its error reaches the
	// guest as a flat message (never a Go error value); so does a panic,
	// which does not take the host down.
	Run func(ctx context.Context, caller Caller, args A) (R, error)
}

// Caller is the call a host function serves: the tool that called it and
// the call's ids and folders.
type Caller struct {
	// Tool is the calling tool's id; Source its kind ("wasm", "js",
	// "python"); File the module or tool file it came from.
	Tool, Source, File string
	// SessionID and CallID identify the tool call; Directory and Worktree
	// are its working directory and project root.
	SessionID, CallID   string
	Directory, Worktree string
}

// Def is a host function checked by Define, ready for host.Options.HostFuncs.
// The zero Def is not a function; NewSet refuses it.
type Def struct {
	name, permission, description string
	// bind decodes a call's argument and returns the patterns to check
	// and the work to do once they are allowed.
	bind func(args json.RawMessage) (patterns []string, run func(context.Context, Caller) (any, error), err error)
}

// Name is the function's name, as guests call it.
func (d Def) Name() string { return d.name }

// Permission is the permission its calls are checked against.
func (d Def) Permission() string { return d.permission }

// Description is what it does, as its Func said.
func (d Def) Description() string { return d.description }

var funcName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Define checks f and returns it as a Def. A name that is malformed or is
// one of toolhost's own host functions (Reserved), a missing Permission
// and a missing Run are refused here, when the embedder defines the
// function, never at a guest's call.
func Define[A, R any](f Func[A, R]) (Def, error) {
	switch {
	case !funcName.MatchString(f.Name):
		return Def{}, fmt.Errorf("define host function %q: a name is a lowercase letter, then up to 63 lowercase letters, digits and underscores", f.Name)
	case slices.Contains(Reserved(), f.Name):
		return Def{}, fmt.Errorf("define host function %q: the name is one of toolhost's own host functions (%s); choose another", f.Name, strings.Join(Reserved(), ", "))
	case strings.TrimSpace(f.Permission) == "":
		return Def{}, fmt.Errorf("define host function %q: it needs a Permission, which the permission rules govern", f.Name)
	case f.Run == nil:
		return Def{}, fmt.Errorf("define host function %q: Run is nil", f.Name)
	}
	bind := func(raw json.RawMessage) ([]string, func(context.Context, Caller) (any, error), error) {
		var args A
		if err := decodeStrict(raw, &args); err != nil {
			return nil, nil, err
		}
		var patterns []string
		if f.Patterns != nil {
			patterns = f.Patterns(args)
		}
		if len(patterns) == 0 {
			patterns = []string{"*"}
		}
		return patterns, func(ctx context.Context, c Caller) (any, error) { return f.Run(ctx, c, args) }, nil
	}
	return Def{name: f.Name, permission: f.Permission, description: f.Description, bind: bind}, nil
}

// decodeStrict decodes raw into v, refusing unknown fields and anything
// after the value; an absent argument (empty or null) leaves v zero.
func decodeStrict(raw json.RawMessage, v any) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the argument")
	}
	return nil
}

// Set is the host functions one host offers its guests besides
// toolhost's own: the embedder's, by name. A nil *Set has none.
type Set struct {
	byName map[string]Def
}

// NewSet collects defs. A zero Def (one not made by Define) and two
// functions of one name are refused.
func NewSet(defs ...Def) (*Set, error) {
	s := &Set{byName: make(map[string]Def, len(defs))}
	for i, d := range defs {
		if d.bind == nil {
			return nil, fmt.Errorf("host function %d (%q) was not made by hostfns.Define", i, d.name)
		}
		if _, dup := s.byName[d.name]; dup {
			return nil, fmt.Errorf("host function %q is defined twice", d.name)
		}
		s.byName[d.name] = d
	}
	return s, nil
}

// Names lists the functions, sorted.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	names := make([]string, 0, len(s.byName))
	for n := range s.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (s *Set) lookup(name string) (Def, bool) {
	if s == nil {
		return Def{}, false
	}
	d, ok := s.byName[name]
	return d, ok
}
