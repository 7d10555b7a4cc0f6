package js

import (
	"context"
	"errors"

	"github.com/toolhost/toolhost/internal/engines/npmengine"
)

// The engine toolhost runs JS tools on: quickjs-wasi's quickjs.wasm, a
// WASI build of QuickJS-NG. Changing the version means changing the hash,
// after checking the package's glue (dist/index.js) still matches the
// imports and qjs_* calls vm.go makes.
const EngineVersion = "3.6.2"

// ErrEngine is wrapped by every failure to obtain or verify the engine.
var ErrEngine = errors.New("JavaScript engine unavailable")

var engine = npmengine.Spec{
	Package: "quickjs-wasi",
	Version: EngineVersion,
	File:    "package/quickjs.wasm",
	SHA256:  "d4c9375f2b1ca4dc95f72c8aa2982a7a9951ac8011490d79c6582df732b4bbd9",
	MaxSize: 16 << 20, // the engine is 637 KB
	Lang:    "JS",
	Err:     ErrEngine,
}

// EngineDir is where the engine is cached: $XDG_CACHE_HOME/toolhost/engines.
func EngineDir() string { return npmengine.Dir() }

// enginePath is the cached quickjs.wasm for EngineVersion under dir.
func enginePath(dir string) string { return engine.Path(dir) }

// LoadEngine returns quickjs.wasm, verified against the pinned sha256,
// fetched with `npm pack` the first time (see npmengine.Spec.Load).
func LoadEngine(ctx context.Context, dir string) ([]byte, error) { return engine.Load(ctx, dir) }

// EngineStatus is what `toolhost doctor` says about the engine.
type EngineStatus = npmengine.Status

// CheckEngine reports the engine cached under dir without fetching it.
func CheckEngine(dir string) EngineStatus {
	return engine.Check(dir, "quickjs-wasi "+EngineVersion+" (QuickJS-NG)")
}
