package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Grants stay with the tool they were given to.
//
// A "wasm" entry grants capabilities (env, allowed_paths, allowed_hosts,
// sampling, config) to a tool named by id or file name. Ids are not
// unique across folders: a repository's .opencode/tool/jira.ts takes over
// the id of the user's ~/.config/opencode/tool/jira.ts. If grants followed
// the id, the repository's code would receive the user's "env":
// ["JIRA_TOKEN"]. So every config file's "wasm" section is kept apart
// (grantLayer), and an entry reaches a tool only when the file that made
// it may grant that tool:
//
//   - your own config (the global directory ~/.config/toolhost,
//     ~/.toolhost, $TOOLHOST_CONFIG_DIR, TOOLHOST_CONFIG_CONTENT) grants,
//     by name, the tools in your own folders: those directories' tool/,
//     tools/, plugin/ and plugins/, and OpenCode's ~/.config/opencode/tool/;
//   - a project's config (toolhost.json at the project root, a .toolhost
//     directory's) grants, by name, the project's tools at or below its
//     own directory, never a tool in your own folders;
//   - a key that is a path names one file: "wasm":
//     {"/src/proj/.opencode/tool/jira.ts": {…}}. In your own config it
//     must be absolute (or ~/…) and may name any file — that is how you
//     grant a project's tool on purpose; in a project's config it is
//     relative to the project directory and may name only a file there;
//   - an installed plugin package (pinned in toolhost.lock by hash, its
//     capabilities accepted by a person at `toolhost plugin add`) is
//     granted by its own name from any config, never by the id of one
//     of its tools or the name of a module: those its author chose, and
//     a package tool called "jira" must not receive your jira's grant.
//
// Entries that reach a tool merge in the usual order. A Config built in
// code rather than loaded from files has no layers and grants by name, as
// the program that built it decided.

// grantPlaces is what a loaded Config knows to bind grants.
type grantPlaces struct {
	placed   bool         // set by Load; false for a Config built in code
	layers   []grantLayer // each source's "wasm" section, in merge order
	userDirs []string     // your own config directories and OpenCode's global one
	home     string
}

// grantLayer is one config source's "wasm" section.
type grantLayer struct {
	source string         // file path, or the environment variable's name
	user   bool           // the user's own config
	dir    string         // a project config's directory (the project root, or the parent of its .toolhost)
	wasm   map[string]any // the section as written, {env:…} expanded
}

// grantLayerOf copies src's "wasm" section out of its parsed tree before
// the tree is merged (merging shares and changes maps).
func grantLayerOf(src *source, tree map[string]any) (grantLayer, bool) {
	w, ok := tree["wasm"].(map[string]any)
	if !ok || len(w) == 0 {
		return grantLayer{}, false
	}
	return grantLayer{source: src.name, wasm: cloneTree(w)}, true
}

func cloneTree(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case map[string]any:
			out[k] = cloneTree(v)
		case []any:
			out[k] = slices.Clone(v)
		default:
			out[k] = v
		}
	}
	return out
}

// placeGrants says, for each layer, whose config it is, and records your
// own tool folders: the directories your own config's grants reach.
func (c *Config) placeGrants(o DirOptions, dirs []configDir) {
	g := &c.grants
	g.placed, g.home = true, o.Home
	kinds := map[string]dirKind{}
	for _, d := range dirs {
		kinds[d.path] = d.kind
		if d.kind != dirProject {
			g.userDirs = append(g.userDirs, d.path)
		}
	}
	if home := openCodeHome(o); home != "" {
		g.userDirs = append(g.userDirs, home)
	}
	for i := range g.layers {
		l := &g.layers[i]
		dir := filepath.Dir(l.source)
		kind, inDir := kinds[dir]
		switch {
		case !filepath.IsAbs(l.source): // TOOLHOST_CONFIG_CONTENT
			l.user = true
		case inDir && kind == dirProject:
			l.dir = filepath.Dir(dir)
		case inDir:
			l.user = true
		default: // the project root's own toolhost.json
			l.dir = dir
		}
	}
}

// openCodeHome is OpenCode's global config directory,
// $XDG_CONFIG_HOME/opencode (default ~/.config/opencode).
func openCodeHome(o DirOptions) string {
	if x := o.Env(EnvXDGConfigHome); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "opencode")
	}
	if o.Home != "" {
		return filepath.Join(o.Home, ".config", "opencode")
	}
	return ""
}

// ToolFile is a wasm or JS tool as grants see it: the names a "wasm" key
// may give it and the file it lives in.
type ToolFile struct {
	// Names are the keys looked up, most specific first: the tool id,
	// then the module or script's file name, then the plugin's name.
	// The first that some reaching config sets decides.
	Names []string
	// Path is the tool's file (module or script), absolute.
	Path string
	// Dir is a plugin's directory, which a path key may name instead of
	// a module; "" for other tools.
	Dir string
	// Package marks a module of an installed plugin package: any config
	// grants it by the package's name, the last of Names.
	Package bool
}

// Withheld is a grant for one of a tool's names that does not reach it,
// because the config that made it may not grant the tool's file.
type Withheld struct {
	// Key is the "wasm" key ("jira"), Source the file that set it.
	Key, Source string
	// Fix is the config that would grant it to the tool on purpose: the
	// same entry keyed by the tool's file, for the user's own config.
	Fix string
}

// String says what was withheld and how to grant it.
func (w Withheld) String() string {
	return fmt.Sprintf(`the grant "wasm": {%q: …} in %s is not given to this tool: a config grants by name only the tools of its own folders; to give it on purpose, add to your own config (~/.config/toolhost/toolhost.json) %s`, w.Key, w.Source, w.Fix)
}

// WasmFor returns the "wasm" config that reaches tool t, and where it came
// from ("wasm.jira", "" when none), merged from the config files allowed
// to grant t's file. withheld lists the grants for t's names that exist
// but do not reach it, for the tool's load problems.
func (c *Config) WasmFor(t ToolFile) (wc WasmConfig, key string, withheld []Withheld) {
	if c == nil {
		return WasmConfig{}, "", nil
	}
	if !c.grants.placed {
		// Built in code, not loaded: grants by name.
		for _, n := range t.Names {
			if e, ok := c.Wasm[n]; ok {
				return e, "wasm." + n, nil
			}
		}
		return WasmConfig{}, "", nil
	}
	path := filepath.Clean(t.Path)
	userTool := c.isUserTool(path)
	var parts []map[string]any
	// A key naming the tool's file is the most specific.
	for _, l := range c.grants.layers {
		for k, v := range l.wasm {
			if !isPathKey(k) {
				continue
			}
			if p, ok := l.resolvePathKey(k, c.grants.home); ok && (p == path || (t.Dir != "" && p == filepath.Clean(t.Dir))) && l.reaches(path, userTool, true) {
				if m, ok := v.(map[string]any); ok {
					parts = append(parts, m)
					key = "wasm." + k
				}
			}
		}
	}
	for i, n := range t.Names {
		if len(parts) > 0 {
			break
		}
		if slices.Contains(t.Names[:i], n) {
			continue // a tool named after its file
		}
		for _, l := range c.grants.layers {
			v, ok := l.wasm[n]
			if !ok {
				continue
			}
			m, _ := v.(map[string]any)
			// A package is granted by its own name (the last of Names)
			// from any config; its tool ids and module names are its
			// author's choice and may be those of your own tools.
			pkgName := t.Package && n == t.Names[len(t.Names)-1]
			if pkgName || (t.Path != "" && l.reaches(path, userTool, false)) {
				parts = append(parts, m)
				key = "wasm." + n
				continue
			}
			withheld = append(withheld, Withheld{Key: n, Source: l.source, Fix: fixFor(t, m)})
		}
	}
	if len(parts) == 0 {
		return WasmConfig{}, "", withheld
	}
	merged := map[string]any{}
	for _, p := range parts {
		deepMerge(merged, cloneTree(p))
	}
	b, err := json.Marshal(merged)
	if err == nil {
		// Each layer was decoded strictly when loaded; a failure here is a
		// bug, and grants nothing.
		if json.NewDecoder(bytes.NewReader(b)).Decode(&wc) != nil {
			return WasmConfig{}, "", withheld
		}
	}
	return wc, key, withheld
}

// reaches reports whether l may grant the tool at path: your own config
// your own tools (any file, when byPath); a project's config the tools
// at or below its directory that are not yours.
func (l grantLayer) reaches(path string, userTool, byPath bool) bool {
	if l.user {
		return userTool || byPath
	}
	return !userTool && l.dir != "" && within(l.dir, path)
}

// isUserTool reports whether path is in one of your own config
// directories (their tool/, plugin/… folders) or OpenCode's global one.
func (c *Config) isUserTool(path string) bool {
	return slices.ContainsFunc(c.grants.userDirs, func(d string) bool { return within(d, path) })
}

// isPathKey tells a key naming a file from a tool, module or plugin name,
// which never hold a slash.
func isPathKey(k string) bool {
	return strings.ContainsRune(k, '/') || strings.ContainsRune(k, filepath.Separator) || k == "~"
}

// resolvePathKey makes a path key absolute: ~/ is the home directory; in
// a project's config a relative key is relative to its directory; in your
// own config a relative key names nothing (it would mean a different file
// in every project), and is reported by CheckGrantKeys.
func (l grantLayer) resolvePathKey(k, home string) (string, bool) {
	if rest, ok := strings.CutPrefix(k, "~/"); ok {
		if home == "" {
			return "", false
		}
		return filepath.Join(home, rest), true
	}
	if filepath.IsAbs(k) {
		return filepath.Clean(k), true
	}
	if l.user || l.dir == "" {
		return "", false
	}
	return filepath.Join(l.dir, k), true
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// fixFor is the config that grants entry to t's file on purpose: the entry
// keyed by the file, config values other than _env names elided (they may
// be secrets).
func fixFor(t ToolFile, entry map[string]any) string {
	e := cloneTree(entry)
	if cfg, ok := e["config"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(cfg)) {
			if !strings.HasSuffix(k, "_env") {
				cfg[k] = "…"
			}
		}
	}
	file := t.Path
	if t.Dir != "" {
		file = t.Dir
	}
	b, _ := json.Marshal(map[string]any{"wasm": map[string]any{file: e}})
	return string(b)
}

// GrantKeyProblems lists path keys in your own config that are relative:
// they would name a different file in every project, so they grant
// nothing. `toolhost doctor` shows them.
func (c *Config) GrantKeyProblems() []string {
	var out []string
	for _, l := range c.grants.layers {
		for _, k := range slices.Sorted(maps.Keys(l.wasm)) {
			if isPathKey(k) && l.user && !filepath.IsAbs(k) && !strings.HasPrefix(k, "~/") {
				out = append(out, fmt.Sprintf("%s: \"wasm\" key %q is a relative path in your own config, so it grants nothing; name the file by its absolute path", l.source, k))
			}
		}
	}
	return out
}
