package rootfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// identity is a file's device and inode.
type identity struct{ dev, ino uint64 }

// outsideIdentities returns the device and inode of everything outside
// root/: the world directory, outside/ and all it holds.
func outsideIdentities(t *testing.T, w world) map[identity]string {
	t.Helper()
	ids := map[identity]string{}
	add := func(p string) {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := sys.NewStat_t(fi)
		ids[identity{st.Dev, st.Ino}] = p
	}
	add(w.dir)
	filepath.WalkDir(w.outside, func(p string, _ os.DirEntry, err error) error {
		if err == nil {
			add(p)
		}
		return nil
	})
	return ids
}

// FuzzNothingOutsideTheRootIsEverReached makes the corpus layout plus one
// link of the fuzzer's choosing (where and to what), then runs one
// operation on a path of its choosing. Whatever was opened or stat'ed must
// not be a file outside root/ (compared by device and inode), no data
// from outside may come back, and nothing outside may change.
func FuzzNothingOutsideTheRootIsEverReached(f *testing.F) {
	c := readCorpus(f)
	for _, tc := range c.Cases {
		for _, s := range tc.Steps {
			f.Add(s.Path, "extra", "../outside", uint8(0))
		}
	}
	f.Add("extra/secret.txt", "extra", "../outside", uint8(1))
	f.Add("dir/extra/secret.txt", "dir/extra", "../../outside", uint8(2))
	f.Add("dir/x/y", "dir/x", "../up/../../outside/sub", uint8(3))
	f.Add("extra/new", "extra", "dir/up/rel_out", uint8(4))
	f.Add("dir/extra", "new", "../outside/secret.txt", uint8(5))
	f.Fuzz(func(t *testing.T, p, linkAt, linkTarget string, op uint8) {
		w := build(t, c)
		// The fuzzer's own link, made by the host (so any target), at a
		// place inside root/ (by its text; the host may follow links on
		// the way, which is fine: the layout only needs to exist).
		if at := filepath.Clean("/" + linkAt); at != "/" && !strings.ContainsRune(linkAt, 0) {
			os.Symlink(linkTarget, filepath.Join(w.root, at))
		}
		ids := outsideIdentities(t, w)
		before := w.snapshot(t)
		fsys := New(w.root)
		defer fsys.Close()

		outside := func(st sys.Stat_t, what string) {
			if name, ok := ids[identity{st.Dev, st.Ino}]; ok {
				t.Fatalf("%s %q reached %s", what, p, name)
			}
		}
		switch op % 6 {
		case 0, 1: // open for reading (a directory too) and read or list it
			file, errno := fsys.OpenFile(p, experimentalsys.O_RDONLY, 0)
			if errno != 0 {
				break
			}
			defer file.Close()
			st, errno := file.Stat()
			if errno == 0 {
				outside(st, "open")
			}
			if isDir, _ := file.IsDir(); isDir {
				ents, _ := file.Readdir(-1)
				for _, e := range ents {
					if e.Name == "secret.txt" || e.Name == "sub" {
						t.Fatalf("listing %q shows outside/'s %s", p, e.Name)
					}
				}
			} else if data, _ := readAll(file); strings.Contains(data, "OUTSIDE") {
				t.Fatalf("reading %q returned outside data %q", p, data)
			}
		case 2:
			if st, errno := fsys.Stat(p); errno == 0 {
				outside(st, "stat")
			}
		case 3: // create and write
			file, errno := fsys.OpenFile(p, experimentalsys.O_RDWR|experimentalsys.O_CREAT, 0o644)
			if errno == 0 {
				if st, errno := file.Stat(); errno == 0 {
					outside(st, "create")
				}
				file.Write([]byte("FUZZ"))
				file.Close()
			}
		case 4:
			fsys.Mkdir(p, 0o755)
			fsys.Symlink(linkTarget, p+".lnk")
		case 5:
			fsys.Rename(p, "moved")
			fsys.Chmod(p, 0o700)
			fsys.Utimens(p, 0, 0)
			fsys.Unlink(p)
		}
		if after := w.snapshot(t); after != before {
			t.Fatalf("op %d on %q changed what is outside root/:\nbefore:\n%s\nafter:\n%s", op%6, p, before, after)
		}
		// A link the guest made must not lead out by its text.
		if dst, err := os.Readlink(filepath.Join(w.root, filepath.Clean("/"+p)+".lnk")); err == nil && op%6 == 4 {
			if filepath.IsAbs(dst) || strings.Contains(dst, "..") && !linkStaysInside(filepath.Clean(p)+".lnk", dst) {
				t.Fatalf("the guest made a link %q -> %q that leads out", p+".lnk", dst)
			}
		}
	})
}
