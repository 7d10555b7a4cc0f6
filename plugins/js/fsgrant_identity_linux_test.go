//go:build linux

package js

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFSWritesJudgeTheFolderNotItsName: a read-only folder reached by a
// second name that is no link — a bind mount here; on macOS and Windows
// the same folder spelled in other case ("LOCKED") — is still read-only.
// The names differ, so only the folders' identity tells.
func TestFSWritesJudgeTheFolderNotItsName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	locked, view := filepath.Join(proj, "locked"), filepath.Join(proj, "view")
	for _, d := range []string{locked, view} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(locked, "secret.txt")
	if err := os.WriteFile(secret, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(locked, view, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("a bind mount is needed (root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(view, unix.MNT_DETACH) })
	b := &Bridge{Tool: "t", Paths: map[string]string{proj: "/w", "ro:" + locked: "/w/locked"}}
	for _, p := range []string{"/w/view/secret.txt", "/w/view/new.txt", filepath.Join(view, "secret.txt")} {
		arg, _ := json.Marshal(map[string]string{"path": p, "data": "SGFja2Vk"})
		_, err := b.Handle(context.Background(), noPause{}, "fs.write", arg)
		if err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("write %s: err = %v, want a read-only refusal", p, err)
		}
	}
	if got, _ := os.ReadFile(secret); string(got) != "keep" {
		t.Errorf("the read-only file was changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(locked, "new.txt")); err == nil {
		t.Error("a file was made in the read-only folder")
	}
	// The writable folder itself stays writable.
	arg, _ := json.Marshal(map[string]string{"path": "/w/ok.txt", "data": "b2s="})
	if _, err := b.Handle(context.Background(), noPause{}, "fs.write", arg); err != nil {
		t.Errorf("write to the writable folder: %v", err)
	}
}
