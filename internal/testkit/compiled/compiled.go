// Package compiled lets tests share the machine code wazero compiles from
// guest modules and the JS engine, across tests, test processes and runs.
//
// Compiling is most of what a test of a wasm or JS tool costs: the JS
// engine takes seconds of CPU, a Go-built guest about one, and every test
// that gives its host or user a fresh cache folder (t.TempDir(), a fresh
// home) compiled them again — 60 % of host's test CPU. wazero's
// compilation cache is keyed by the module's bytes and the CPU, and
// written with a rename, so one folder can serve every process; toolhost
// shares it the same way between all the tools of one user. It is not
// keyed by the runtime's settings, so each engine gets a folder of its
// own, as it has under a toolhost cache folder.
//
// A test that checks compiling itself (a cold cache, a progress line, a
// cache being filled) does not link: it must see what a new user sees.
// pytooltest.SeedEngine links the Python engine's compiled code likewise.
//
// The shared folders are under the user cache folder
// (toolhost-e2e/compiled), beside the engines and npm packages the tests
// fetch; they grow with every changed module and may be removed at any
// time.
package compiled

import (
	"os"
	"path/filepath"
	"testing"
)

// Kinds of compiled code and where each lives under a toolhost cache
// folder ($XDG_CACHE_HOME/toolhost): the wasm engine's guests and the JS
// engine (plugins/js.CompiledDir).
const (
	Wasm = "wasm"
	JS   = "js"
)

// Dir is the machine-wide folder of one kind of compiled code.
func Dir(kind string) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "toolhost-e2e", "compiled", kind)
}

// Link makes the compiled-code folders of the toolhost cache folder root
// (wasm/compiled and js/compiled) links to the shared ones. root's other
// contents (engines, descriptions, plugins) stay its own.
func Link(t testing.TB, root string) {
	t.Helper()
	LinkDir(t, filepath.Join(root, Wasm, "compiled"), Wasm)
	LinkDir(t, filepath.Join(root, JS, "compiled"), JS)
}

// LinkDir makes dir, which must not exist yet, a link to the shared
// folder of kind: for a runtime given its compiled-code folder directly.
func LinkDir(t testing.TB, dir, kind string) {
	t.Helper()
	shared := Dir(kind)
	if err := os.MkdirAll(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, dir); err != nil {
		t.Fatal(err)
	}
}
