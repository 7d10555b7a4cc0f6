package js

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/toolhost/toolhost/internal/confine/fspath"
)

// importRules names the rules below in the build cache's key, so a bundle
// cached under older, looser rules is built (and judged) again.
const importRules = "imports-2"

// importPolicy decides which files a tool's bundle may hold: the
// project's own sources (inside root) and the packages installed in it
// (node_modules folders inside root, found as Node does, walking up from
// the importing file). Every path is judged with its links resolved —
// where the bytes really are — so a link, a package's "main", "module",
// "exports" or "browser" field, or ".." in a specifier cannot carry a file
// from elsewhere into the sandbox.
type importPolicy struct {
	root string // the project (or the config folder), links resolved
}

// inPackage reports whether real (inside root) lies in a node_modules
// folder of the project: a package's file.
func (p importPolicy) inPackage(real string) bool {
	rel, ok := within(p.root, real)
	return ok && slices.Contains(strings.Split(rel, string(filepath.Separator)), "node_modules")
}

// remedy says how to make a refused package importable.
func (p importPolicy) remedy() string {
	return fmt.Sprintf("install it with npm in the tool's folder or a folder above it within %s", p.root)
}

// checkFile refuses a file esbuild is about to load that is outside the
// project, not source code, or not a regular file.
func (p importPolicy) checkFile(path string) error {
	if !sourceExts[strings.ToLower(filepath.Ext(path))] {
		return fmt.Errorf("%s is not JavaScript, TypeScript or JSON; a tool reads other files at run time, inside its allowed_paths", path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := within(p.root, real); !ok {
		return fmt.Errorf("%s is outside the project (%s); a tool imports only the project's files and the packages installed in it; %s", path, p.root, p.remedy())
	}
	// esbuild reads without a time limit: a FIFO would hold the load for
	// ever, a device feed it without end.
	if st, err := os.Stat(real); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; a tool imports only files", path)
	}
	return nil
}

// sourceLoaders are esbuild's loaders for sourceExts, which a file's
// contents handed over by load need (esbuild would take them for js).
var sourceLoaders = map[string]api.Loader{".js": api.LoaderJS, ".mjs": api.LoaderJS, ".cjs": api.LoaderJS, ".jsx": api.LoaderJSX,
	".ts": api.LoaderTS, ".mts": api.LoaderTS, ".cts": api.LoaderTS, ".tsx": api.LoaderTSX, ".json": api.LoaderJSON}

// maxSourceBytes bounds one file a bundle is made of.
const maxSourceBytes = 32 << 20

// load reads a file esbuild is about to load, once checkFile allowed it,
// through an os.Root of the project: the bytes bundled are those of a
// file inside the project even when the path is swapped for a link
// leading out between the check and the read (esbuild reading by name
// would follow it).
func (p importPolicy) load(path string) (api.OnLoadResult, error) {
	if err := p.checkFile(path); err != nil {
		return api.OnLoadResult{}, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return api.OnLoadResult{}, fmt.Errorf("%s: %w", path, err)
	}
	rel, ok := within(p.root, real)
	if !ok {
		return api.OnLoadResult{}, fmt.Errorf("%s is outside the project (%s); a tool imports only the project's files and the packages installed in it; %s", path, p.root, p.remedy())
	}
	root, err := os.OpenRoot(p.root)
	if err != nil {
		return api.OnLoadResult{}, fmt.Errorf("%s: %w", path, err)
	}
	defer root.Close()
	f, err := fspath.OpenRegular(root, rel, os.O_RDONLY)
	if err != nil {
		return api.OnLoadResult{}, fmt.Errorf("%s: %w; a tool imports only the project's regular files", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSourceBytes+1))
	if err != nil {
		return api.OnLoadResult{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxSourceBytes {
		return api.OnLoadResult{}, fmt.Errorf("%s: over %d bytes", path, maxSourceBytes)
	}
	src := string(b)
	return api.OnLoadResult{Contents: &src, Loader: sourceLoaders[strings.ToLower(filepath.Ext(path))]}, nil
}

// checkImport judges where esbuild resolved spec, imported from
// resolveDir (the importing file's folder) by importer ("" for toolhost's
// own modules and the entry), to: resolved is a path in the file
// namespace. It must be inside the project; a package name must resolve
// into that package as installed in a node_modules folder on the way up
// from resolveDir within the project; and a package's file imports only
// packages, never the project's files.
func (p importPolicy) checkImport(spec, importer, resolveDir, resolved string) error {
	real, err := filepath.EvalSymlinks(resolved)
	if err != nil {
		return fmt.Errorf("import %q: %s: %w", spec, resolved, err)
	}
	if strings.HasPrefix(filepath.Base(importer), "<") { // esbuild's name for the entry
		importer = ""
	}
	from := "the tool's entry"
	if importer != "" {
		from = importer
	}
	name := packageName(spec)
	if _, ok := within(p.root, real); !ok {
		fix := "move the file into the project or read it at run time through allowed_paths"
		if name != "" {
			fix = p.remedy()
		}
		return fmt.Errorf("import %q in %s: it leads to %s, outside the project (%s); a tool imports only the project's files and the packages installed in it; %s", spec, from, real, p.root, fix)
	}
	fromPackage := false
	if importer != "" {
		if ir, err := filepath.EvalSymlinks(importer); err == nil {
			fromPackage = p.inPackage(ir)
		}
	}
	if name != "" {
		exists, inside := p.installed(name, resolveDir, real)
		if inside || !exists && !fromPackage && !p.inPackage(real) {
			// In the package; or no such package is installed and the
			// name is the project's own alias (tsconfig "paths") for
			// one of its files.
			return nil
		}
		return fmt.Errorf("import %q in %s: it leads to %s, which is not inside the package %s as installed in the project (its main, module, exports or browser field points out of the package, or the package is a link leading out of the project); %s", spec, from, real, name, p.remedy())
	}
	if fromPackage && !p.inPackage(real) {
		return fmt.Errorf("import %q in %s: a package reaches out of node_modules to %s; a package may import only packages, not the project's files", spec, from, real)
	}
	return nil
}

// installed reports whether package name is installed in a node_modules
// folder of dir or a folder above it (exists, also when it is a link
// leading out of the project), and whether real lies inside one such
// package within root — with the package folder's own links resolved
// (pnpm's and workspaces' links stay inside the project; one leading out
// is not installed here).
func (p importPolicy) installed(name, dir, real string) (exists, inside bool) {
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." || strings.ContainsAny(part, "\\\x00") {
			return true, false // not a package's name: it would walk the folders
		}
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	for {
		if _, ok := within(p.root, dir); !ok {
			return exists, false
		}
		cand := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
		if _, err := os.Lstat(cand); err == nil {
			exists = true
		}
		if pkg, err := filepath.EvalSymlinks(cand); err == nil {
			if _, ok := within(p.root, pkg); ok {
				if r, ok := within(pkg, real); ok && r != "." {
					return true, true
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return exists, false
		}
		dir = parent
	}
}

// packageName is the package a bare specifier names ("zod" for "zod/v4",
// "@scope/pkg" for "@scope/pkg/x"), or "" for a relative, absolute or
// "#" specifier.
func packageName(spec string) string {
	if spec == "" || spec == "." || spec == ".." || strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") ||
		strings.HasPrefix(spec, "#") || strings.HasPrefix(spec, "/") || filepath.IsAbs(spec) {
		return ""
	}
	parts := strings.SplitN(spec, "/", 3)
	if strings.HasPrefix(spec, "@") && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// resolving marks esbuild's Resolve calls made by checkedResolve, so it
// does not judge its own resolution again.
type resolving struct{}

// checkedResolve lets esbuild resolve every import of a file as it would,
// then holds the result to the policy.
func checkedResolve(b api.PluginBuild, p importPolicy) {
	b.OnResolve(api.OnResolveOptions{Filter: `.*`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
		if _, ok := a.PluginData.(resolving); ok || a.Kind == api.ResolveEntryPoint {
			return api.OnResolveResult{}, nil
		}
		r := b.Resolve(a.Path, api.ResolveOptions{Importer: a.Importer, Namespace: a.Namespace, ResolveDir: a.ResolveDir, Kind: a.Kind, PluginData: resolving{}, With: a.With})
		if len(r.Errors) > 0 || r.Path == "" || r.External {
			return api.OnResolveResult{}, nil // esbuild reports it, or loads nothing
		}
		if r.Namespace == "file" {
			importer := ""
			if a.Namespace == "file" {
				importer = a.Importer
			}
			if err := p.checkImport(a.Path, importer, a.ResolveDir, r.Path); err != nil {
				return api.OnResolveResult{}, err
			}
		}
		side := api.SideEffectsTrue
		if !r.SideEffects {
			side = api.SideEffectsFalse // a package.json "sideEffects": false
		}
		return api.OnResolveResult{Path: r.Path, Namespace: r.Namespace, Suffix: r.Suffix, SideEffects: side, PluginData: r.PluginData}, nil
	})
}
