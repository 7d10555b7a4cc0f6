package js

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// testEngine returns the verified engine, fetched once into the user's
// cache like a real first run. Without npm the test skips, except on CI.
func testEngine(t testing.TB) []byte {
	t.Helper()
	engineOnce.Do(func() {
		if _, err := os.Stat(enginePath(EngineDir())); err != nil {
			if _, err := exec.LookPath("npm"); err != nil {
				engineErr = err
				return
			}
		}
		engineBytes, engineErr = LoadEngine(context.Background(), EngineDir())
	})
	if engineErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("JS engine: %v", engineErr)
		}
		t.Skipf("JS engine unavailable (needs npm): %v", engineErr)
	}
	return engineBytes
}

var (
	engineOnce  sync.Once
	engineBytes []byte
	engineErr   error
)

func TestLoadEngineRefusesATamperedCache(t *testing.T) {
	t.Parallel()
	good := testEngine(t)
	dir := t.TempDir()
	bad := append([]byte(nil), good...)
	bad[len(bad)-1] ^= 1
	if err := os.WriteFile(enginePath(dir), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadEngine(context.Background(), dir); err == nil {
		t.Fatal("a cached engine with the wrong sha256 loaded")
	}
	if err := os.WriteFile(enginePath(dir), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadEngine(context.Background(), dir); err != nil {
		t.Fatalf("the verified engine did not load: %v", err)
	}
}

func TestEngineEvaluatesScripts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rt, err := NewRuntime(ctx, testEngine(t), 64, "")
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	v, err := rt.newVM(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx = withSession(ctx, &session{vm: v})
	got, err := v.eval(ctx, `JSON.stringify({ok: 1+1, s: "é"})`, "t.js")
	if err != nil || got != `{"ok":2,"s":"é"}` {
		t.Fatalf("eval = %q, %v", got, err)
	}
	if _, err := v.eval(ctx, `throw new TypeError("boom")`, "t.js"); err == nil || err.Error() != "TypeError: boom" {
		t.Fatalf("throw = %v", err)
	}
	bc, err := v.compile(ctx, `var seven = 3 + 4;`, "c.js")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.runBytecode(ctx, bc); err != nil {
		t.Fatal(err)
	}
	snap, err := v.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.eval(ctx, `seven = 8`, "t.js"); err != nil {
		t.Fatal(err)
	}
	w, err := rt.newVM(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	ctx = withSession(ctx, &session{vm: w})
	if got, err := w.eval(ctx, `String(seven)`, "t.js"); err != nil || got != "7" {
		t.Fatalf("restored seven = %q, %v", got, err)
	}
}

func TestWithoutNpmTheEngineErrorSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no npm
	_, err := LoadEngine(context.Background(), t.TempDir())
	if !errors.Is(err, ErrEngine) || !strings.Contains(err.Error(), "apt-get install nodejs npm") {
		t.Fatalf("err = %v", err)
	}
	if st := CheckEngine(t.TempDir()); st.Ready || !strings.Contains(st.Problem, "npm is missing") {
		t.Fatalf("doctor = %+v", st)
	}
}
