package js

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"
)

// ErrNoZod is wrapped when a tool file cannot be built because zod, which
// OpenCode's tool.schema is, is not installed above it.
var ErrNoZod = errors.New("zod is not installed")

// thNamespace is esbuild's namespace for the modules toolhost provides.
const thNamespace = "toolhost"

// bundle builds the tool file at path into one script that, run after the
// prelude, leaves the file's exports in globalThis.__toolMod and zod in
// globalThis.__toolZ. Imports resolve as Bun or Node would: relative
// files, then node_modules folders walking up from the file.
func bundle(path string) (string, error) {
	code, _, err := bundleInputs(path, "")
	return code, err
}

// bundleInputs is bundle that also returns the files the bundle was made
// of (absolute paths), for the build cache. Only files inside root
// (default: the folder holding the tool folder) are bundled, judged with
// their links resolved: the project's sources and the packages installed
// in its node_modules (imports.go). Not files that are not JavaScript,
// TypeScript or JSON, nor a file a package name resolves to outside that
// package, nor project files a package imports: an import must not carry
// a file the tool's allowed_paths do not grant into the sandbox.
func bundleInputs(path, root string) (string, []string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, err
	}
	dir := filepath.Dir(abs)
	if root == "" {
		root = filepath.Dir(dir)
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	policy := importPolicy{root: root}
	entry := "import * as mod from " + strconv.Quote("./"+filepath.Base(abs)) + ";\n" +
		"import { z } from \"zod\";\nglobalThis.__toolMod = mod;\nglobalThis.__toolZ = z;\n"
	res := api.Build(api.BuildOptions{
		Stdin:         &api.StdinOptions{Contents: entry, ResolveDir: dir, Sourcefile: "<toolhost-entry>", Loader: api.LoaderJS},
		Bundle:        true,
		Write:         false,
		Format:        api.FormatIIFE,
		Platform:      api.PlatformBrowser,
		Target:        api.ES2022,
		Charset:       api.CharsetUTF8,
		LogLevel:      api.LogLevelSilent,
		Define:        map[string]string{"process.env.NODE_ENV": `"production"`},
		Plugins:       []api.Plugin{toolhostModules(policy)},
		Metafile:      true,
		AbsWorkingDir: dir,
	})
	if len(res.Errors) > 0 {
		return "", nil, buildError(abs, dir, res.Errors)
	}
	if len(res.OutputFiles) != 1 {
		return "", nil, fmt.Errorf("build %s: esbuild wrote %d files, want 1", abs, len(res.OutputFiles))
	}
	var meta struct {
		Inputs map[string]struct {
			Imports []struct {
				Path string `json:"path"`
			} `json:"imports"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		return "", nil, fmt.Errorf("build %s: metafile: %w", abs, err)
	}
	// file is an input's absolute path, "" for a namespaced module
	// (toolhost:…, <stdin>).
	file := func(in string) string {
		if strings.HasPrefix(in, "<") || strings.Contains(in, ":") && !filepath.IsAbs(in) {
			return ""
		}
		if !filepath.IsAbs(in) {
			in = filepath.Join(dir, in)
		}
		return in
	}
	var inputs []string
	for in, m := range meta.Inputs {
		in = file(in)
		if in == "" {
			continue
		}
		inputs = append(inputs, in)
		// A package imports packages, not the project's files: a
		// hostile one would carry the project's config (keys, tokens)
		// into the sandbox. (checkedResolve refuses it first; this holds
		// the finished bundle to the same rule.)
		if !policy.inPackage(realPath(in)) {
			continue
		}
		for _, imp := range m.Imports {
			if to := file(imp.Path); to != "" && !policy.inPackage(realPath(to)) {
				return "", nil, fmt.Errorf("build %s: %s reaches out of node_modules to %s; a package may import only packages", abs, in, to)
			}
		}
	}
	return string(res.OutputFiles[0].Contents), inputs, nil
}

// realPath is path with its links resolved, or path when it cannot be.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

func buildError(file, dir string, msgs []api.Message) error {
	var lines []string
	for _, m := range msgs {
		if strings.Contains(m.Text, `Could not resolve "zod"`) {
			return fmt.Errorf("build %s: %w: OpenCode tools describe their arguments with zod; run `npm install zod` in %s or the project root", file, ErrNoZod, dir)
		}
		where := ""
		if m.Location != nil {
			where = fmt.Sprintf("%s:%d:%d: ", m.Location.File, m.Location.Line, m.Location.Column)
		}
		lines = append(lines, where+m.Text)
		if len(lines) == 5 {
			break
		}
	}
	return fmt.Errorf("build %s: %s", file, strings.Join(lines, "; "))
}

// nodeBuiltins are the Node and Bun modules a tool might import. fs is
// provided (confined to allowed_paths); path is pure and provided; the
// rest resolve to a module that fails on use, naming the alternative.
var nodeBuiltins = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(node:.*|bun|bun:.*|assert|buffer|child_process|cluster|crypto|dgram|dns|events|fs|fs/promises|http|http2|https|net|os|path|perf_hooks|process|querystring|readline|stream|string_decoder|timers|tls|tty|url|util|v8|vm|worker_threads|zlib)$`)
})

// toolhostModules resolves @opencode-ai/plugin (when the project does not
// install it) and the Node and Bun built-ins to modules of thNamespace,
// and holds every other import and every file loaded to the policy.
func toolhostModules(policy importPolicy) api.Plugin {
	return api.Plugin{Name: "toolhost", Setup: func(b api.PluginBuild) {
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "file"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			return policy.load(a.Path)
		})
		b.OnResolve(api.OnResolveOptions{Filter: `^@opencode-ai/plugin(/tool)?$`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			if installed(a.ResolveDir, policy.root, "@opencode-ai/plugin") {
				return api.OnResolveResult{}, nil // the project's own
			}
			return api.OnResolveResult{Path: "opencode-plugin", Namespace: thNamespace, PluginData: a.ResolveDir}, nil
		})
		b.OnResolve(api.OnResolveOptions{Filter: nodeBuiltins().String()}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			name := strings.TrimPrefix(a.Path, "node:")
			return api.OnResolveResult{Path: "builtin:" + name, Namespace: thNamespace}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: thNamespace}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			if a.Path == "opencode-plugin" {
				dir, _ := a.PluginData.(string)
				return api.OnLoadResult{Contents: &pluginModule, ResolveDir: dir, Loader: api.LoaderJS}, nil
			}
			name := strings.TrimPrefix(a.Path, "builtin:")
			src := "module.exports = globalThis.__toolhostBuiltin(" + strconv.Quote(name) + ");\n"
			return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS}, nil
		})
		// Last, so the modules above are toolhost's before it resolves.
		checkedResolve(b, policy)
	}}
}

// pluginModule stands in for @opencode-ai/plugin: tool() is the identity
// and tool.schema is zod, as in the real package.
var pluginModule = `import { z } from "zod";
export function tool(input) { return input; }
tool.schema = z;
export default { tool };
`

// installed reports whether node_modules/<pkg> exists in dir or a parent
// within root (one above the project is not the project's).
func installed(dir, root, pkg string) bool {
	dir = realPath(dir)
	for {
		if _, ok := within(root, dir); !ok {
			return false
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// sourceExts are the files a bundle may contain.
var sourceExts = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".jsx": true,
	".ts": true, ".mts": true, ".cts": true, ".tsx": true, ".json": true}
