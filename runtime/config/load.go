package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/tailscale/hujson"

	"github.com/toolhost/toolhost/runtime/permission"
)

// LoadOptions says where Load looks. Every field has a default taken from
// the process; tests stay hermetic by setting all of them.
type LoadOptions struct {
	// Directory is the working directory. Default os.Getwd.
	Directory string
	// Worktree is the project root. Default FindWorktree(Directory).
	Worktree string
	// Env reads an environment variable. Default os.Getenv.
	Env func(string) string
	// Home is the user's home directory. Default os.UserHomeDir.
	Home string
	// Logger receives one debug record per file read. Default: no logging.
	Logger *slog.Logger
	// UntrustedProject holds back the project's own config files (see
	// ProjectFiles): only their deny rules take effect (trust.go).
	UntrustedProject bool
}

// DirOptions returns the options Dirs needs, so callers can list the same
// directories Load searched.
func (o LoadOptions) DirOptions() DirOptions {
	return DirOptions{Directory: o.Directory, Worktree: o.Worktree, Env: o.Env, Home: o.Home}
}

// Loaded is the result of Load: the merged config and where it came from.
type Loaded struct {
	// Config is the merged, validated config, defaults filled in.
	Config *Config
	// Dirs are the config directories searched, lowest precedence first
	// (see Dirs); other loaders (plugins, agents) search the same list.
	Dirs []string
	// Files are the config files read, in merge order.
	Files []string
	// ProjectFiles are the files of Files that belong to the project
	// (ProjectFiles), whether or not they were held back.
	ProjectFiles []string
	// Held is true when UntrustedProject held back at least one file.
	Held bool
	// ProjectSums are the SHA-256 digests (hex) of the bytes read from
	// each of ProjectFiles, so a caller can check they are the bytes a
	// person trusted, not a file swapped in after it was judged.
	ProjectSums map[string]string
}

// source is one document to merge: a file, or inline config from the
// environment.
type source struct {
	name  string // file path, or the environment variable's name
	dir   string // what {file:path} is relative to
	data  []byte
	lines bool // rule sources carry ":line" (files do, inline config does not)
	perm  bool // the document is a bare permission value (TOOLHOST_PERMISSION)
	held  bool // an untrusted project file: only its deny rules count (trust.go)
}

// Load finds, reads, merges, decodes and validates the config. Files
// toolhost.json then toolhost.jsonc are read from, in order: the global
// config directory, the project root (worktree), each .toolhost directory
// from the root down to the working directory, ~/.toolhost, and
// $TOOLHOST_CONFIG_DIR; then TOOLHOST_CONFIG_CONTENT and
// TOOLHOST_PERMISSION. Missing files are skipped; with none at all the
// result is Default().
//
// Objects are deep-merged (later keys win, nested objects merge, arrays and
// scalars are replaced), except permission values, top-level and per agent:
// their rules are concatenated in merge order, so under last-match-wins a
// later file's rule beats an earlier one's. Each rule's Source is
// "file:line" of its key.
//
// Every problem in every source is reported, joined, each as an *Error
// naming file, line and key.
func Load(opts LoadOptions) (*Loaded, error) {
	o := opts.DirOptions().withDefaults()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dirs := configDirs(o)
	out := &Loaded{Dirs: make([]string, len(dirs))}
	for i, d := range dirs {
		out.Dirs[i] = d.path
	}
	var srcs []*source
	project := projectFileSet(o, dirs)
	for _, f := range configFiles(o, dirs) {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("load config %s: %w; fix its permissions or remove it", f, err)
		}
		log.Debug("config file read", "path", f, "bytes", len(data))
		held := opts.UntrustedProject && project[f]
		srcs = append(srcs, &source{name: f, dir: filepath.Dir(f), data: data, lines: true, held: held})
		out.Files = append(out.Files, f)
		if project[f] {
			out.ProjectFiles = append(out.ProjectFiles, f)
			out.Held = out.Held || held
			if out.ProjectSums == nil {
				out.ProjectSums = map[string]string{}
			}
			sum := sha256.Sum256(data)
			out.ProjectSums[f] = hex.EncodeToString(sum[:])
		}
	}
	if s := o.Env(EnvConfigContent); s != "" {
		srcs = append(srcs, &source{name: EnvConfigContent, dir: o.Directory, data: []byte(s)})
	}
	if s := o.Env(EnvPermission); s != "" {
		srcs = append(srcs, &source{name: EnvPermission, dir: o.Directory, data: []byte(s), perm: true})
	}
	cfg, err := build(srcs, o)
	if err != nil {
		return nil, err
	}
	cfg.placeGrants(o, dirs)
	out.Config = cfg
	return out, nil
}

// configFiles lists candidate files in merge order: the global directories'
// files, the project root's, then the other directories'.
func configFiles(o DirOptions, dirs []configDir) []string {
	var files []string
	root := false
	for _, d := range dirs {
		if !root && d.kind != dirGlobal {
			files = appendFiles(files, o.Worktree)
			root = true
		}
		files = appendFiles(files, d.path)
	}
	if !root {
		files = appendFiles(files, o.Worktree)
	}
	return dedupKeepLast(files, func(s string) string { return s })
}

func appendFiles(files []string, dir string) []string {
	for _, n := range FileNames {
		files = append(files, filepath.Join(dir, n))
	}
	return files
}

// parsed is one source after checking.
type parsed struct {
	tree    map[string]any // the document without permission values, for merging
	origins map[string]origin
	top     permission.Ruleset
	agents  map[string]permission.Ruleset
	refs    []substitution
}

// build merges sources in order into a validated Config.
func build(srcs []*source, o DirOptions) (*Config, error) {
	merged := map[string]any{}
	origins := map[string]origin{}
	var top permission.Ruleset
	agents := map[string]permission.Ruleset{}
	var errs []error
	var layers []grantLayer
	defined := map[string]bool{} // agents a source that is not held names
	var refs []substitution
	for _, src := range srcs {
		p, err := parse(src, o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if src.held {
			p = tighteningOnly(p)
		} else {
			noteAgents(defined, p)
		}
		if l, ok := grantLayerOf(src, p.tree); ok {
			layers = append(layers, l)
		}
		deepMerge(merged, p.tree)
		refs = append(refs, p.refs...)
		for k, v := range p.origins {
			origins[k] = v
		}
		top = append(top, p.top...)
		for name, r := range p.agents {
			agents[name] = append(agents[name], r...)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	cfg := Default()
	b, err := json.Marshal(merged)
	if err != nil {
		return nil, fmt.Errorf("encode merged config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	// Every source was decoded strictly on its own already, so this cannot
	// fail short of a bug in the merge; it is checked all the same.
	if err := dec.Decode(cfg); err != nil {
		return nil, fmt.Errorf("decode merged config: %w", err)
	}
	cfg.Permission.Rules = top
	cfg.grants.layers = layers
	cfg.refs = refs
	for name, rules := range agents {
		if !defined[name] {
			// Only an untrusted project names it: its deny rules apply
			// to a built-in agent of that name, never define a new one.
			cfg.heldAgents = append(cfg.heldAgents, name)
		}
		if cfg.Agent == nil {
			cfg.Agent = map[string]AgentConfig{}
		}
		a := cfg.Agent[name]
		a.Permission.Rules = rules
		cfg.Agent[name] = a
	}
	if err := validate(cfg, origins); err != nil {
		return nil, err
	}
	if len(origins) > 0 {
		cfg.origins = origins
	}
	return cfg, nil
}

var configType = reflect.TypeFor[Config]()

// parse checks and decodes one source on its own, so its errors name its
// own lines, and returns what merging needs.
func parse(src *source, o DirOptions) (*parsed, error) {
	v, err := hujson.Parse(src.data)
	if err != nil {
		if !onlyComments(src.data) {
			return nil, syntaxError(src, err)
		}
		// An empty or all-comment file is an empty config, as a user who
		// just created one expects.
		v = hujson.Value{Value: &hujson.Object{}}
	}
	c := newChecker(src, o.Home, o.Env)
	if src.perm {
		c.value(&v, permissionType, []string{"permission"}, v.StartOffset)
	} else {
		if _, ok := v.Value.(*hujson.Object); !ok {
			return nil, &Error{Source: src.name, Line: c.line(v.StartOffset), Msg: fmt.Sprintf("config must be a JSON object, got %s", kindName(&v))}
		}
		c.value(&v, configType, nil, v.StartOffset)
	}
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	p := &parsed{origins: c.origins, top: c.top, agents: c.agents, refs: c.refs}
	if src.perm {
		return p, nil
	}

	// Standardize blanks comments and trailing commas without moving a line,
	// so offsets in any decode error below still map to the right line.
	v.Standardize()
	std := v.Pack()
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.DisallowUnknownFields()
	var one Config
	if err := dec.Decode(&one); err != nil {
		return nil, decodeError(src, std, err)
	}
	dec = json.NewDecoder(bytes.NewReader(std))
	dec.UseNumber() // keep numbers exact through the merge
	if err := dec.Decode(&p.tree); err != nil {
		return nil, decodeError(src, std, err)
	}
	stripPermissions(p.tree)
	return p, nil
}

// onlyComments reports whether data holds nothing but whitespace and
// comments: adding a value then makes it parse.
func onlyComments(data []byte) bool {
	v, err := hujson.Parse(append(slices.Clip(data), "\nnull"...))
	if err != nil {
		return false
	}
	lit, ok := v.Value.(hujson.Literal)
	return ok && lit.Kind() == 'n'
}

var hujsonPosition = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^hujson: line (\d+), column (\d+): `) })

func syntaxError(src *source, err error) error {
	msg := err.Error()
	line := 0
	if m := hujsonPosition().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = "column " + m[2] + ": " + msg[len(m[0]):]
	}
	return &Error{Source: src.name, Line: line, Msg: "syntax error at " + msg + "; the file must be JSON, with // or /* */ comments and trailing commas allowed"}
}

// decodeError maps an encoding/json error to a line. The checker catches
// everything encoding/json would reject first, so this is a backstop.
func decodeError(src *source, std []byte, err error) error {
	var (
		se *json.SyntaxError
		te *json.UnmarshalTypeError
	)
	off := -1
	key := ""
	switch {
	case errors.As(err, &te):
		off = int(te.Offset)
		key = te.Field
	case errors.As(err, &se):
		off = int(se.Offset)
	}
	e := &Error{Source: src.name, Key: key, Msg: err.Error()}
	if off >= 0 && off <= len(std) {
		e.Line = 1 + bytes.Count(std[:off], []byte("\n"))
	}
	return e
}

// stripPermissions removes permission values from a document before it is
// deep-merged; their rules are concatenated separately.
func stripPermissions(tree map[string]any) {
	delete(tree, "permission")
	agents, _ := tree["agent"].(map[string]any)
	for _, a := range agents {
		if am, ok := a.(map[string]any); ok {
			delete(am, "permission")
		}
	}
}

// deepMerge merges src into dst: objects merge key by key, anything else
// (scalars, arrays, null) replaces what was there.
func deepMerge(dst, src map[string]any) {
	for k, sv := range src {
		sm, sIsMap := sv.(map[string]any)
		dm, dIsMap := dst[k].(map[string]any)
		if sIsMap && dIsMap {
			deepMerge(dm, sm)
			continue
		}
		dst[k] = sv
	}
}
