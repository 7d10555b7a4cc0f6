package config

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tailscale/hujson"

	"github.com/toolhost/toolhost/runtime/permission"
)

// checker walks one source's syntax tree against the Go type it will be
// decoded into. encoding/json reports an unknown field without its offset
// and a type error at the end of the value, so the checker does this first,
// on the tree hujson gives us, where every key and value knows its offset:
// that is what lets every message name its line. It also
//
//   - expands {env:VAR} and {file:path} in string values, in place;
//   - collects permission rules with their Source (file:line), since rule
//     order and origin are lost in a decoded struct;
//   - records where each key path was last set, so problems found after
//     merging still point at a line.
type checker struct {
	src   *source
	lines []int // byte offset of the start of each line of src.data
	home  string
	env   func(string) string

	errs    []error
	origins map[string]origin // pathKey → where it was set
	top     permission.Ruleset
	agents  map[string]permission.Ruleset
	refs    []substitution // the {env:…} and {file:…} the source expanded
}

// origin is where a key was set.
type origin struct {
	source string
	line   int
}

var (
	permissionType = reflect.TypeFor[permission.Config]()
	lspConfigType  = reflect.TypeFor[LSPConfig]()
	lspServersType = reflect.TypeFor[map[string]LSPServer]()
	rawType        = reflect.TypeFor[json.RawMessage]()
)

// maxErrors stops a badly broken file from burying the first, most useful
// messages.
const maxErrors = 20

func newChecker(src *source, home string, env func(string) string) *checker {
	c := &checker{src: src, home: home, env: env, origins: map[string]origin{}, agents: map[string]permission.Ruleset{}}
	c.lines = append(c.lines, 0)
	for i, b := range src.data {
		if b == '\n' {
			c.lines = append(c.lines, i+1)
		}
	}
	return c
}

// line maps a byte offset to its 1-based line.
func (c *checker) line(off int) int {
	return sort.Search(len(c.lines), func(i int) bool { return c.lines[i] > off })
}

func (c *checker) errorf(off int, path []string, format string, args ...any) {
	if len(c.errs) >= maxErrors {
		return
	}
	c.errs = append(c.errs, &Error{Source: c.src.name, Line: c.line(off), Key: formatPath(path), Msg: fmt.Sprintf(format, args...)})
}

// keyErrorf prefixes the message with the key path.
func (c *checker) keyErrorf(off int, path []string, format string, args ...any) {
	c.errorf(off, path, "key %q: %s", formatPath(path), fmt.Sprintf(format, args...))
}

func (c *checker) record(path []string, off int) {
	c.origins[pathKey(path)] = origin{c.src.name, c.line(off)}
}

// pathKey is a map key for a path; NUL cannot occur in a key the user means.
func pathKey(path []string) string { return strings.Join(path, "\x00") }

// with returns path+elem in a fresh slice, so recursion never aliases.
func with(path []string, elem string) []string {
	return append(slices.Clip(path), elem)
}

// value checks v against t. keyOff is the offset of the key naming v (or of
// v itself at the top level), the line a single-action permission rule
// points at.
func (c *checker) value(v *hujson.Value, t reflect.Type, path []string, keyOff int) {
	if t == permissionType {
		c.permission(v, path, keyOff)
		return
	}
	lit, isLit := v.Value.(hujson.Literal)
	if t == lspConfigType {
		// "lsp": false turns every language server off, as in OpenCode.
		switch {
		case isLit && (lit.Kind() == 'f' || lit.Kind() == 't' || lit.Kind() == 'n'):
		case v.Value.Kind() == '{':
			c.value(v, lspServersType, path, keyOff)
		default:
			c.typeError(v, path, `false or an object of language servers ("lsp": {"gopls": {"disabled": true}})`)
		}
		return
	}
	if isLit && lit.Kind() == 'n' {
		// encoding/json leaves the current value (the default) for null in
		// a scalar or struct and clears a map, slice or pointer: both read
		// as "unset" to a user, so null is accepted everywhere.
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawType || t.Kind() == reflect.Interface {
		return
	}
	switch t.Kind() {
	case reflect.String:
		if !isLit || lit.Kind() != '"' {
			c.typeError(v, path, "a string")
			return
		}
		c.expand(v, lit, path)
	case reflect.Bool:
		if !isLit || (lit.Kind() != 't' && lit.Kind() != 'f') {
			c.typeError(v, path, "true or false")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !isLit || lit.Kind() != '0' {
			c.typeError(v, path, "a number")
			return
		}
		if _, err := strconv.ParseInt(string(lit), 10, t.Bits()); err != nil {
			c.numberError(v, lit, path, err)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !isLit || lit.Kind() != '0' {
			c.typeError(v, path, "a number")
			return
		}
		if _, err := strconv.ParseUint(string(lit), 10, t.Bits()); err != nil {
			c.numberError(v, lit, path, err)
		}
	case reflect.Float32, reflect.Float64:
		if !isLit || lit.Kind() != '0' {
			c.typeError(v, path, "a number")
			return
		}
		if _, err := strconv.ParseFloat(string(lit), t.Bits()); err != nil {
			c.keyErrorf(v.StartOffset, path, "%s is out of range", lit)
		}
	case reflect.Slice, reflect.Array:
		arr, ok := v.Value.(*hujson.Array)
		if !ok {
			c.typeError(v, path, "an array")
			return
		}
		for i := range arr.Elements {
			el := &arr.Elements[i]
			c.value(el, t.Elem(), with(path, "["+strconv.Itoa(i)+"]"), el.StartOffset)
		}
	case reflect.Map:
		obj, ok := v.Value.(*hujson.Object)
		if !ok {
			c.typeError(v, path, "an object")
			return
		}
		for i := range obj.Members {
			m := &obj.Members[i]
			p := with(path, memberName(m))
			c.record(p, m.Name.StartOffset)
			c.value(&m.Value, t.Elem(), p, m.Name.StartOffset)
		}
	case reflect.Struct:
		obj, ok := v.Value.(*hujson.Object)
		if !ok {
			c.typeError(v, path, "an object")
			return
		}
		fields := jsonFields(t)
		for i := range obj.Members {
			m := &obj.Members[i]
			name := memberName(m)
			p := with(path, name)
			f, ok := fields[name]
			if !ok {
				c.unknownKey(m, path, name, fields)
				continue
			}
			c.record(p, m.Name.StartOffset)
			c.value(&m.Value, f.Type, p, m.Name.StartOffset)
		}
	default:
		// Config holds no other kinds; a new field of an unexpected kind is
		// still decoded and checked by encoding/json after this walk.
	}
}

func memberName(m *hujson.ObjectMember) string {
	lit, _ := m.Name.Value.(hujson.Literal)
	return lit.String()
}

func (c *checker) unknownKey(m *hujson.ObjectMember, parent []string, name string, fields map[string]reflect.StructField) {
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	p := formatPath(with(parent, name))
	if s := suggest(name, names); s != "" {
		c.errorf(m.Name.StartOffset, with(parent, name), "unknown key %q (did you mean %q?)", p, formatPath(with(parent, s)))
		return
	}
	slices.Sort(names)
	c.errorf(m.Name.StartOffset, with(parent, name), "unknown key %q; known keys here: %s", p, strings.Join(names, ", "))
}

func (c *checker) typeError(v *hujson.Value, path []string, want string) {
	c.keyErrorf(v.StartOffset, path, "must be %s, got %s", want, kindName(v))
}

func (c *checker) numberError(v *hujson.Value, lit hujson.Literal, path []string, err error) {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		c.keyErrorf(v.StartOffset, path, "%s is out of range", lit)
		return
	}
	c.keyErrorf(v.StartOffset, path, "must be a whole number, got %s", lit)
}

func kindName(v *hujson.Value) string {
	switch v.Value.Kind() {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "invalid value"
}

// jsonFields maps the JSON names of t's exported fields to the fields.
// Matching is exact, unlike encoding/json's case-insensitive fallback: a key
// in the wrong case is almost always a typo and is reported as one.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// permission reads a permission value into rules, keeping order, naming
// each rule's source line. It accepts what permission.Config accepts.
func (c *checker) permission(v *hujson.Value, path []string, keyOff int) {
	var rules permission.Ruleset
	add := func(perm, pattern string, a permission.Action, off int) {
		src := c.src.name
		if c.src.lines {
			src = fmt.Sprintf("%s:%d", c.src.name, c.line(off))
		}
		rules = append(rules, permission.Rule{Permission: perm, Pattern: pattern, Action: a, Source: src})
	}
	switch val := v.Value.(type) {
	case hujson.Literal:
		switch val.Kind() {
		case 'n':
			return
		case '"':
			if a, ok := c.action(v, val, path); ok {
				add("*", "*", a, keyOff)
			}
		default:
			c.keyErrorf(v.StartOffset, path, "must be allow, ask, deny or an object of permission names, got %s", kindName(v))
			return
		}
	case *hujson.Object:
		for i := range val.Members {
			m := &val.Members[i]
			perm := memberName(m)
			pp := with(path, perm)
			c.record(pp, m.Name.StartOffset)
			switch inner := m.Value.Value.(type) {
			case hujson.Literal:
				if inner.Kind() != '"' {
					c.keyErrorf(m.Value.StartOffset, pp, "must be allow, ask, deny or an object of pattern to action, got %s", kindName(&m.Value))
					continue
				}
				if a, ok := c.action(&m.Value, inner, pp); ok {
					add(perm, "*", a, m.Name.StartOffset)
				}
			case *hujson.Object:
				for j := range inner.Members {
					pm := &inner.Members[j]
					pattern := memberName(pm)
					p := with(pp, pattern)
					c.record(p, pm.Name.StartOffset)
					lit, ok := pm.Value.Value.(hujson.Literal)
					if !ok || lit.Kind() != '"' {
						c.keyErrorf(pm.Value.StartOffset, p, "must be allow, ask or deny, got %s", kindName(&pm.Value))
						continue
					}
					if a, ok := c.action(&pm.Value, lit, p); ok {
						add(perm, pattern, a, pm.Name.StartOffset)
					}
				}
			default:
				c.keyErrorf(m.Value.StartOffset, pp, "must be allow, ask, deny or an object of pattern to action, got %s", kindName(&m.Value))
			}
		}
	default:
		c.keyErrorf(v.StartOffset, path, "must be allow, ask, deny or an object of permission names, got %s", kindName(v))
		return
	}
	switch {
	case len(path) == 1:
		c.top = append(c.top, rules...)
	case len(path) == 3 && path[0] == "agent":
		c.agents[path[1]] = append(c.agents[path[1]], rules...)
	}
}

var actions = []string{string(permission.Allow), string(permission.Ask), string(permission.Deny)}

func (c *checker) action(v *hujson.Value, lit hujson.Literal, path []string) (permission.Action, bool) {
	a := permission.Action(lit.String())
	if a.Valid() {
		return a, true
	}
	if s := suggest(string(a), actions); s != "" {
		c.keyErrorf(v.StartOffset, path, "%q is not an action (did you mean %q?); use allow, ask or deny", a, s)
	} else {
		c.keyErrorf(v.StartOffset, path, "%q is not an action; use allow, ask or deny", a)
	}
	return "", false
}

// reference matches {env:VAR} and {file:path}, OpenCode's substitutions.
var reference = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{(env|file):([^}]*)\}`) })

// maxFileReference caps what {file:path} may pull in; secrets and prompts
// are small, and a mistaken path to a large file should fail clearly.
const maxFileReference = 1 << 20

// expand replaces {env:VAR} (empty when unset) and {file:path} (the file's
// content without surrounding whitespace; path relative to the config
// file's directory, ~/ for home) in a string value. The new literal is
// JSON-escaped, so it holds no raw newline and every later line number
// stays right.
func (c *checker) expand(v *hujson.Value, lit hujson.Literal, path []string) {
	s := lit.String()
	if c.src.held || !strings.Contains(s, "{env:") && !strings.Contains(s, "{file:") {
		// An untrusted project's values are dropped (trust.go): nothing
		// is read for them.
		return
	}
	failed := false
	out := reference().ReplaceAllStringFunc(s, func(ref string) string {
		m := reference().FindStringSubmatch(ref)
		c.refs = append(c.refs, substitution{source: c.src.name, key: strings.Join(path, "."), ref: ref})
		if m[1] == "env" {
			return c.env(strings.TrimSpace(m[2]))
		}
		content, err := c.readReference(strings.TrimSpace(m[2]))
		if err != nil {
			failed = true
			c.keyErrorf(v.StartOffset, path, "%s: %v", ref, err)
			return ref
		}
		return content
	})
	if !failed {
		v.Value = hujson.String(out)
	}
}

func (c *checker) readReference(p string) (string, error) {
	switch {
	case p == "":
		return "", fmt.Errorf("empty path; write {file:./name} relative to %s", c.src.dir)
	case p == "~" || strings.HasPrefix(p, "~/"):
		if c.home == "" {
			return "", fmt.Errorf("no home directory to resolve %s; use an absolute path", p)
		}
		p = filepath.Join(c.home, p[1:])
	case !filepath.IsAbs(p):
		p = filepath.Join(c.src.dir, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("%w; create the file or remove the reference", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileReference+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	if len(b) > maxFileReference {
		return "", fmt.Errorf("%s is over %d bytes; reference a smaller file", p, maxFileReference)
	}
	return strings.TrimSpace(string(b)), nil
}
