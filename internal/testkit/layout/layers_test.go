package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of the repository's root package.
const module = "github.com/toolhost/toolhost"

// layers are the repository's packages by layer, lowest first. A
// package's code (tests aside: a test may drive its package from above)
// imports packages of its own layer or a lower one, never a higher: the
// runtime knows no tool source, a source knows no host, the host knows no
// front end. An entry ending in /... covers the folder and everything
// under it; the longest entry that matches a package decides its layer.
// A package in no layer fails the check: say where a new one belongs.
var layers = []struct {
	name string
	pkgs []string
}{
	{"foundation: helpers that know no toolhost type", []string{
		"internal/confine/fspath", "internal/confine/rootfs", "internal/serve/httpguard", "internal/content/skill", "internal/content/resources",
		"internal/content/prompts", "internal/engines/npmengine", "internal/serve/jwtauth", "internal/observe/progress", "internal/confine/sandbox", "internal/testkit/e2e", "internal/testkit/agenttest",
		"internal/testkit/layout", "internal/testkit/fstree", "internal/testkit/compiled", "internal/testkit/minikey", "internal/lifecycle", "internal/engines/search", "internal/content/textfill", "sdk-guest",
	}},
	{"runtime: the tool contract, registry, wrapper, config, permissions, sessions and the source contract", []string{
		"runtime/...",
	}},
	{"engines and sources: what tools run on and come from", []string{
		"builtins/...", "plugins/...", "hostfns/...", "internal/engines/lsp/...", "internal/confine/trust",
		"internal/engines/toolbuild", "internal/observe/tracing", "internal/confine/shellperm", "mcp/client",
	}},
	{"host: the loop over sources", []string{"host"}},
	{"front ends: the CLI, the MCP server, the agent loop, the inbox, programs", []string{
		"agent/...", "mcp/server/...", "mcp/internal/...", "internal/cli", "internal/serve/inbox", "cmd/...", "examples/...", "deploy", "internal/release/...",
	}},
}

// layerOf is the index in layers of the package at rel (a path relative
// to the module root), or -1.
func layerOf(rel string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.pkgs {
			tree, ok := strings.CutSuffix(p, "/...")
			matches := rel == p || (ok && (rel == tree || strings.HasPrefix(rel, tree+"/")))
			if matches && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

func TestNoPackageImportsOneFromALayerAboveIt(t *testing.T) {
	t.Parallel()
	imports := packageImports(t)
	if len(imports) < 20 {
		t.Fatalf("found %d packages; the walk is broken", len(imports))
	}
	for pkg, deps := range imports {
		from := layerOf(pkg)
		if from < 0 {
			t.Errorf("package %s is in no layer: add it to layers in internal/testkit/layout/layers_test.go", pkg)
			continue
		}
		for _, dep := range deps {
			to := layerOf(dep)
			if to < 0 {
				continue // reported as a package of its own
			}
			if to > from {
				t.Errorf("%s (%s) imports %s (%s), a layer above it: move what it needs down, or hand it in from above", pkg, layers[from].name, dep, layers[to].name)
			}
		}
	}
}

func TestLayersPlaceEachKnownKindOfPackage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pkg  string
		want int
	}{
		{"internal/engines/search", 0},
		{"runtime", 1},
		{"runtime/source", 1},
		{"plugins/wasm", 2},
		{"internal/confine/trust", 2},
		{"host", 3},
		{"mcp/server", 4},
		{"examples/host", 4},
		{"internal/unheardof", -1},
	}
	for _, tt := range tests {
		if got := layerOf(tt.pkg); got != tt.want {
			t.Errorf("layerOf(%s) = %d, want %d", tt.pkg, got, tt.want)
		}
	}
}

// packageImports maps each package of the module (its path relative to
// the root) to the module's packages its non-test files import. Folders
// with a go.mod of their own are other modules and are skipped, as are
// testdata, third_party and hidden folders.
func packageImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "third_party" || name == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		if _, ok := out[rel]; !ok {
			out[rel] = nil
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(path, module+"/"); ok {
				out[rel] = append(out[rel], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
