package python_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/python/pytooltest"
	"github.com/toolhost/toolhost/plugins/wasm"
)

// warmFile loads testdata/name with a pool, so a call's time is the
// script's own.
func warmFile(t *testing.T, name string) *python.File {
	t.Helper()
	f, err := python.Load(context.Background(), "testdata/"+name, python.LoadOptions{Runtime: pytooltest.Runtime(t), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return f
}

func TestRunawayScriptsAreStoppedAtTheirLimits(t *testing.T) {
	f := warmFile(t, "runaway.py")
	tests := []struct {
		name, id string
		lim      python.Limits
		want     error
		within   time.Duration
	}{
		{"an endless loop is stopped within a second of its time limit", "runaway_spin", python.Limits{Timeout: time.Second, MemoryMaxMB: 256}, wasm.ErrTimeout, 2 * time.Second},
		{"a memory bomb is stopped at its memory limit", "runaway_bomb", python.Limits{Timeout: time.Minute, MemoryMaxMB: 96}, wasm.ErrMemoryLimit, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := python.Sandbox{MemoryMaxMB: tt.lim.MemoryMaxMB}
			f.Warm(sb)
			if !f.WaitIdle(sb, time.Minute) {
				t.Fatal("no instance started")
			}
			start := time.Now()
			_, err := f.Call(context.Background(), def(t, f, tt.id), nil, python.CallInfo{}, tt.lim, sb, nil)
			took := time.Since(start)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			t.Logf("stopped after %s: %v", took, err)
			if tt.within > 0 && took > tt.within {
				t.Errorf("stopped after %s, want within %s", took, tt.within)
			}
		})
	}
}

func TestTheSandboxHoldsFilesToTheirGrants(t *testing.T) {
	t.Parallel()
	f := load(t, "files.py", "")
	proj := t.TempDir()
	secret := t.TempDir()
	os.WriteFile(filepath.Join(proj, "in.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(secret, "s.txt"), []byte("SECRET"), 0o644)
	os.Symlink(filepath.Join(secret, "s.txt"), filepath.Join(proj, "abs-link"))
	os.Symlink("../"+filepath.Base(secret)+"/s.txt", filepath.Join(proj, "rel-link"))
	os.MkdirAll(filepath.Join(proj, "ro"), 0o755)
	os.WriteFile(filepath.Join(proj, "ro", "r.txt"), []byte("read me"), 0o644)
	os.Symlink("ro", filepath.Join(proj, "alias"))
	os.Link(filepath.Join(proj, "ro", "r.txt"), filepath.Join(proj, "hard.txt"))
	sb := python.Sandbox{Paths: map[string]string{proj: "/work", "ro:" + filepath.Join(proj, "ro"): "/work/ro"}}
	tests := []struct {
		name, args string
		ok         bool
		want       string
	}{
		{"a granted file is read", `{"op":"read","path":"/work/in.txt"}`, true, "inside"},
		{"a granted folder is written", `{"op":"write","path":"/work/new.txt","data":"hi"}`, true, "wrote"},
		{"an absolute link out of the grant is refused", `{"op":"read","path":"/work/abs-link"}`, false, "Error"},
		{"a relative link out of the grant is refused", `{"op":"read","path":"/work/rel-link"}`, false, "Error"},
		{"dot-dot out of the grant is refused", `{"op":"read","path":"/work/../` + filepath.Base(secret) + `/s.txt"}`, false, "Error"},
		{"a read-only mount inside a writable one refuses writes", `{"op":"write","path":"/work/ro/r.txt","data":"x"}`, false, "Error"},
		{"a link in the writable mount to the read-only folder refuses writes", `{"op":"write","path":"/work/alias/r.txt","data":"x"}`, false, "Error"},
		{"a hard link in the writable mount to a read-only file refuses writes", `{"op":"write","path":"/work/hard.txt","data":"x"}`, false, "Error"},
		{"a read-only mount is read", `{"op":"read","path":"/work/ro/r.txt"}`, true, "read me"},
		{"the toolhost module cannot be changed", `{"op":"escape_toolhost"}`, false, "Error"},
		{"nothing else of the host is there", `{"op":"list","path":"/"}`, false, "Error"},
		{"the clock is not the host's", `{"op":"clock"}`, true, "16409952"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := f.Call(context.Background(), f.Defs[0], json.RawMessage(tt.args), python.CallInfo{}, python.Limits{Timeout: time.Minute, MemoryMaxMB: 256}, sb, nil)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = out.Output
			}
			if (err == nil) != tt.ok || !strings.Contains(got, tt.want) || strings.Contains(got, "SECRET") {
				t.Fatalf("got %q, %v; want ok=%v %q", got, err, tt.ok, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "ro", "r.txt")); string(b) != "read me" {
		t.Errorf("the read-only file changed: %q", b)
	}
	if _, err := f.Call(context.Background(), f.Defs[0], json.RawMessage(`{"op":"clock"}`), python.CallInfo{}, python.Limits{MemoryMaxMB: 256},
		python.Sandbox{Paths: map[string]string{proj: "/toolhost/x"}}, nil); err == nil || !strings.Contains(err.Error(), "may not mount") {
		t.Errorf("a grant over /toolhost was accepted: %v", err)
	}
}
