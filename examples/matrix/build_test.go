package matrix

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// repoRoot is the repository root, relative to this package.
const repoRoot = "../.."

// language is one guest language of the matrix: how to tell whether its
// toolchain is here, and how to build its words example.
type language struct {
	name string
	// sources are the files and folders (relative to the repository root)
	// whose content decides the module: the SDK, the example, and the
	// file holding the build command.
	sources []string
	// toolchain finds the toolchain and returns a string naming its
	// version, part of the cache key; when it is missing, an error
	// wrapping errMissing that says what to install.
	toolchain func(ctx context.Context) (string, error)
	// build writes the module to out.
	build func(ctx context.Context, out string) error
}

// languages is the matrix, in the order results are reported.
var languages = []language{goLang, cLang, rustLang, asLang, dLang}

// built is the outcome of building one language's module, once per run.
type built struct {
	once    sync.Once
	path    string
	err     error
	missing bool // the toolchain is absent
	took    time.Duration
	cached  bool
}

var builds sync.Map // language name → *built

// module returns the language's words module, building it once per run,
// and skips the test when the toolchain is missing — unless CI=true, where
// every language must build.
func module(t testing.TB, l language) string {
	t.Helper()
	v, _ := builds.LoadOrStore(l.name, &built{})
	b := v.(*built)
	b.once.Do(func() { b.path, b.missing, b.cached, b.took, b.err = buildCached(l) })
	if b.missing {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s toolchain missing in CI: %v", l.name, b.err)
		}
		t.Skipf("%s toolchain missing, so this language is not tested: %v", l.name, b.err)
	}
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// errMissing marks a toolchain that is not installed.
var errMissing = errors.New("toolchain not found")

// buildCached builds l's module into the temp directory under a name that
// hashes its sources and toolchain version, or reuses that file.
func buildCached(l language) (path string, missing, cached bool, took time.Duration, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	version, err := l.toolchain(ctx)
	if err != nil {
		return "", errors.Is(err, errMissing), false, 0, err
	}
	key, err := hashSources(version, l.sources)
	if err != nil {
		return "", false, false, 0, fmt.Errorf("hash %s sources: %w", l.name, err)
	}
	dir := filepath.Join(os.TempDir(), "toolhost-matrix")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, false, 0, err
	}
	path = filepath.Join(dir, l.name+"-"+key[:16]+".wasm")
	if _, err := os.Stat(path); err == nil {
		return path, false, true, 0, nil
	}
	start := time.Now()
	tmp := path + fmt.Sprintf(".%d.tmp", os.Getpid())
	if err := l.build(ctx, tmp); err != nil {
		os.Remove(tmp)
		return "", false, false, 0, fmt.Errorf("build the %s example: %w", l.name, err)
	}
	took = time.Since(start)
	// Rename is atomic: a concurrent run sees the whole module or none.
	if err := os.Rename(tmp, path); err != nil {
		return "", false, false, 0, err
	}
	// Modules built from older sources are never used again.
	old, _ := filepath.Glob(filepath.Join(dir, l.name+"-????????????????.wasm"))
	for _, o := range old {
		if o != path {
			os.Remove(o)
		}
	}
	return path, false, false, took, nil
}

// hashSources hashes the toolchain version and every regular file under
// the given paths (relative to the repository root), skipping build
// output.
func hashSources(version string, paths []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "toolchain %s\n", version)
	var files []string
	for _, p := range paths {
		root := filepath.Join(repoRoot, p)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "target") {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() && !strings.HasSuffix(path, ".wasm") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(f), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// run runs a command and returns its combined output in the error.
func run(ctx context.Context, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return nil
}

// output runs a command and returns its trimmed standard output.
func output(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	return strings.TrimSpace(string(out)), err
}

// lookPath returns the first of names found in PATH or as an absolute path.
func lookPath(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: none of %s", errMissing, strings.Join(names, ", "))
}

func abs(rel string) string {
	p, err := filepath.Abs(filepath.Join(repoRoot, rel))
	if err != nil {
		panic(err)
	}
	return p
}
