package hostfns

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

func TestPathGrantsAreReadInOneOrderWithTheReadOnlyEntryFirst(t *testing.T) {
	t.Parallel()
	got := PathGrants(map[string]string{"/p/": "/work/", "ro:/p": "/work", "ro:/p/locked": "/work/locked", "ro:": "/x", "/a": "/a"})
	want := []PathGrant{
		{Host: "/a", Guest: "/a"},
		{Host: "/p", Guest: "/work", ReadOnly: true},
		{Host: "/p", Guest: "/work"},
		{Host: "/p/locked", Guest: "/work/locked", ReadOnly: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PathGrants = %+v\nwant %+v", got, want)
	}
}

// A WASI guest's writable mount must not change what another grant of
// the same tool holds read-only, whichever name it uses: wasm modules and
// Python tools are mounted here, so both keep the rule.
func TestAWritableMountDoesNotReachAReadOnlyGrantInsideIt(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	locked := filepath.Join(proj, "locked")
	os.MkdirAll(locked, 0o755)
	os.WriteFile(filepath.Join(locked, "r.txt"), []byte("keep"), 0o644)
	os.Symlink("locked", filepath.Join(proj, "alias"))
	os.Link(filepath.Join(locked, "r.txt"), filepath.Join(proj, "hard.txt"))
	_, m := Mount(nil, map[string]string{proj: "/work", "ro:" + locked: "/work/locked"})
	t.Cleanup(m.Close)
	var writable int
	for i, g := range PathGrants(map[string]string{proj: "/work", "ro:" + locked: "/work/locked"}) {
		if !g.ReadOnly {
			writable = i
		}
	}
	fsys := m.fs[writable]
	for _, p := range []string{"locked/r.txt", "alias/r.txt", "hard.txt", "alias/new.txt"} {
		f, errno := fsys.OpenFile(p, experimentalsys.O_WRONLY|experimentalsys.O_CREAT|experimentalsys.O_TRUNC, 0o644)
		if errno == 0 {
			f.Write([]byte("changed"))
			f.Close()
			t.Errorf("%s opened for writing through the writable mount", p)
		}
	}
	if f, errno := fsys.OpenFile("free.txt", experimentalsys.O_WRONLY|experimentalsys.O_CREAT, 0o644); errno != 0 {
		t.Errorf("a file outside the read-only folder is not writable: %v", errno)
	} else {
		f.Close()
	}
	if b, _ := os.ReadFile(filepath.Join(locked, "r.txt")); string(b) != "keep" {
		t.Errorf("the read-only file changed: %q", b)
	}
}
