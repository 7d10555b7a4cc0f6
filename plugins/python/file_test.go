package python_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/python/pytooltest"
)

func TestListingACachedFileStartsNoPython(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cache := t.TempDir()
	p := filepath.Join(t.TempDir(), "weather.py")
	src, err := os.ReadFile("testdata/weather.py")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, src, 0o644)
	first, err := python.Load(ctx, p, python.LoadOptions{Runtime: pytooltest.Runtime(t), CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	// No runtime at all: the tools can only come from the schema cache.
	again, err := python.Load(ctx, p, python.LoadOptions{CacheDir: cache})
	if err != nil || len(again.Defs) != len(first.Defs) || again.Defs[0].ID != "weather" {
		t.Fatalf("cached load = %+v, %v", again, err)
	}
	// An edit is a new content hash: it is described again, which needs Python.
	os.WriteFile(p, append(src, []byte("\n# edited\n")...), 0o644)
	if _, err := python.Load(ctx, p, python.LoadOptions{CacheDir: cache}); !errors.Is(err, python.ErrEngine) {
		t.Fatalf("an edited file loaded from the cache: %v", err)
	}
}

func TestLoadErrorsNameTheFileAndLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string
	}{
		{"a syntax error", "import toolhost\n\n@toolhost.tool\ndef f(x: int:\n    pass\n", ":4: SyntaxError"},
		{"an exception at the top level", "import toolhost\nx = 1\nraise RuntimeError('no config')\n", ":3: RuntimeError: no config"},
		{"an unsupported annotation", "import toolhost\n\n@toolhost.tool\ndef f(x: complex) -> str:\n    \"\"\"Doc.\"\"\"\n", ":4: f: parameter x: unsupported annotation"},
		{"a file with no tool", "x = 1\n", "defines no tool"},
		{"a tool without a docstring", "import toolhost\n\n@toolhost.tool\ndef f(x: int) -> str:\n    return ''\n", ":4: f: no description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.py")
			os.WriteFile(p, []byte(tt.src), 0o644)
			_, err := python.Load(context.Background(), p, python.LoadOptions{Runtime: pytooltest.Runtime(t), CacheDir: t.TempDir()})
			var le *python.LoadError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), p+tt.want) && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestWithoutNpmThePythonEngineErrorSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no npm
	_, err := python.LoadEngine(context.Background(), t.TempDir())
	if !errors.Is(err, python.ErrEngine) || !strings.Contains(err.Error(), "Python tools need npm once") || !strings.Contains(err.Error(), "apt-get install nodejs npm") {
		t.Fatalf("err = %v", err)
	}
	if st := python.CheckEngine(t.TempDir()); st.Ready || !strings.Contains(st.Problem, "npm is missing") {
		t.Fatalf("doctor = %+v", st)
	}
}

func TestATamperedCachedEngineIsRefused(t *testing.T) {
	t.Parallel()
	good := pytooltest.Engine(t)
	dir := t.TempDir()
	bad := append([]byte(nil), good...)
	bad[len(bad)/2] ^= 1
	os.WriteFile(filepath.Join(dir, "python-wasi-"+python.EngineVersion+".wasm"), bad, 0o644)
	if _, err := python.LoadEngine(context.Background(), dir); !errors.Is(err, python.ErrEngine) || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("a tampered engine loaded: %v", err)
	}
}
