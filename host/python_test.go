package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

func TestWithoutTheEngineEachPythonFileGetsOneErrorNamingNpm(t *testing.T) {
	project, env := newProject(t)
	t.Setenv("PATH", t.TempDir()) // no npm, and no engine in the cache
	dir := filepath.Join(project, ".toolhost", "tool")
	os.MkdirAll(dir, 0o755)
	for _, n := range []string{"a.py", "b.py"} {
		os.WriteFile(filepath.Join(dir, n), []byte("import toolhost\n"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "_helper.py"), []byte("x = 1\n"), 0o644)
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	var py []runtime.LoadError
	for _, e := range h.LoadErrors {
		if e.Source == runtime.SourcePython {
			py = append(py, e)
		}
	}
	if len(py) != 2 || !strings.Contains(py[0].Reason, "Python tools need npm once") || py[0].Reason != py[1].Reason {
		t.Fatalf("load errors = %+v, want the same one naming npm for a.py and b.py", py)
	}
	if !h.Registry.Has("read") {
		t.Fatal("the built-ins did not load")
	}
}
