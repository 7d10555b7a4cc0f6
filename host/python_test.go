package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/python/pytooltest"
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
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t)})
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

const pythonTool = `import toolhost


@toolhost.tool
def late(n: int = 1) -> str:
    """Count to n."""
    return " ".join(str(i) for i in range(1, n + 1))
`

func TestAPythonToolDroppedIntoARunningHostIsCalledAndGoes(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	cache := testCache(t)
	pytooltest.SeedEngine(t, cache)
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: cache, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	file := filepath.Join(project, ".toolhost", "tool", "late.py")
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(pythonTool), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the dropped file's tool is listed", func() bool { src, ok := h.Registry.Source("late"); return ok && src == runtime.SourcePython })
	for range 2 { // the second call takes the instance started after the first
		res, err := h.Call(ctx, runtime.Call{Tool: "late", Args: json.RawMessage(`{"n": 3}`)})
		if err != nil || res.Output != "1 2 3" {
			t.Fatalf("call = %+v, %v", res, err)
		}
	}
	os.Remove(file)
	waitFor(t, "the removed file's tool is gone", func() bool { _, ok := h.Registry.Source("late"); return !ok })
}
