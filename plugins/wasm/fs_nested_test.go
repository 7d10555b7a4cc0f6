package wasm

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
)

// TestAWasmGuestCannotWriteANestedReadOnlyGrant: with allowed_paths
// {"data": "/data", "ro:data/locked": "/data/locked"}, the guest's
// writable /data mount never changes what the read-only one holds —
// through a link into locked/ (one it finds or one it makes), a hard
// link to a file there, or by moving locked/ itself.
func TestAWasmGuestCannotWriteANestedReadOnlyGrant(t *testing.T) {
	t.Parallel()
	grants := map[string]config.WasmConfig{"fsprobe": {AllowedPaths: map[string]string{"data": "/data", "ro:data/locked": "/data/locked"}}}
	tools := discover(t, newHost(t, &config.Config{Wasm: grants}), configDir(t, map[string]string{"fsprobe.wasm": guest(t, "fsprobe")}))
	tl, ok := tools["fsprobe"]
	if !ok {
		t.Fatalf("fsprobe not loaded: %v", tools)
	}
	tests := []struct {
		name  string
		steps []probeStep
	}{
		{"a write through a link into the read-only folder", []probeStep{{Op: "write", Path: "/data/alias/secret.txt", Want: "EROFS"}}},
		{"an append through a link into the read-only folder", []probeStep{{Op: "append", Path: "/data/alias/secret.txt", Want: "EROFS"}}},
		{"a new file through a link into the read-only folder", []probeStep{{Op: "write", Path: "/data/alias/new.txt", Want: "EROFS"}}},
		{"a write to a hard link of a read-only file", []probeStep{{Op: "write", Path: "/data/hard.txt", Want: "EPERM"}}},
		{"a link the guest makes, then a write through it", []probeStep{{Op: "symlink", Path: "/data/mine", Arg: "locked", Want: "ok"}, {Op: "write", Path: "/data/mine/secret.txt", Want: "EROFS"}}},
		{"a hard link the guest makes, then a write to it", []probeStep{{Op: "link", Path: "/data/alias/secret.txt", Arg: "/data/mine.txt", Want: "ok"}, {Op: "write", Path: "/data/mine.txt", Want: "EPERM"}}},
		{"moving a link to the read-only folder moves only the link", []probeStep{{Op: "rename", Path: "/data/alias", Arg: "/data/alias2", Want: "ok"}, {Op: "write", Path: "/data/alias2/secret.txt", Want: "EROFS"}}},
		{"removing a read-only file through a link", []probeStep{{Op: "remove", Path: "/data/alias/secret.txt", Want: "EROFS"}}},
		{"a write in the writable folder", []probeStep{{Op: "write", Path: "/data/free.txt", Want: "ok"}, {Op: "read", Path: "/data/alias/secret.txt", Want: "ok", Data: "LOCKED"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			project := t.TempDir()
			locked := filepath.Join(project, "data", "locked")
			os.MkdirAll(locked, 0o755)
			os.WriteFile(filepath.Join(locked, "secret.txt"), []byte("LOCKED"), 0o644)
			os.Symlink("locked", filepath.Join(project, "data", "alias"))
			if err := os.Link(filepath.Join(locked, "secret.txt"), filepath.Join(project, "data", "hard.txt")); err != nil {
				t.Fatal(err)
			}
			for i, s := range tt.steps {
				args := s
				out := callProbe(t, tl, project, args)
				if out.Errno != s.Want {
					t.Errorf("step %d: %s %s %s: %s, want %s (data %q)", i, s.Op, s.Path, s.Arg, out.Errno, s.Want, out.Data)
				}
				if s.Data != "" && out.Data != s.Data {
					t.Errorf("step %d: %s %s returned %q, want %q", i, s.Op, s.Path, out.Data, s.Data)
				}
				if b, err := os.ReadFile(filepath.Join(locked, "secret.txt")); err != nil || string(b) != "LOCKED" {
					t.Fatalf("step %d: %s %s changed the read-only file: %q, %v", i, s.Op, s.Path, b, err)
				}
			}
		})
	}
}
