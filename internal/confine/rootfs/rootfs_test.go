package rootfs

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// corpus is testdata/escapes.json.
type corpus struct {
	Comment string  `json:"comment"`
	Outside []entry `json:"outside"`
	Layout  []entry `json:"layout"`
	Cases   []struct {
		Name  string `json:"name"`
		RO    bool   `json:"ro"`
		Steps []step `json:"steps"`
		// Protect is a folder inside the root that another mount grants
		// read-only (WithReadOnly); it must not change either. The case
		// runs with ProtectedLayout made in the root.
		Protect string `json:"protect"`
	} `json:"cases"`
	ProtectedLayout []entry `json:"protected_layout"`
}

// entry is a file, a link or a hard link (to a file already made, by its
// path in the same folder) to make; $OUTSIDE and $ROOT in link expand.
type entry struct {
	Path string  `json:"path"`
	File *string `json:"file"`
	Link string  `json:"link"`
	Hard string  `json:"hard"`
}

type step struct {
	Op   string `json:"op"`
	Path string `json:"path"`
	Arg  string `json:"arg"`
	Want string `json:"want"`
	Data string `json:"data"`
}

func readCorpus(t testing.TB) corpus {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "escapes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c corpus
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		t.Fatalf("testdata/escapes.json: %v", err)
	}
	return c
}

// world is a temporary directory holding root/ (the mount) and outside/.
type world struct {
	dir, root, outside string
}

func (w world) expand(s string) string {
	return strings.NewReplacer("$OUTSIDE", w.outside, "$ROOT", w.root).Replace(s)
}

func build(t testing.TB, c corpus) world {
	t.Helper()
	dir := t.TempDir()
	w := world{dir: dir, root: filepath.Join(dir, "root"), outside: filepath.Join(dir, "outside")}
	makeEntries(t, w, w.outside, c.Outside)
	makeEntries(t, w, w.root, c.Layout)
	return w
}

// makeEntries makes entries below base.
func makeEntries(t testing.TB, w world, base string, entries []entry) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(base, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case e.File != nil:
			err = os.WriteFile(p, []byte(*e.File), 0o644)
		case e.Hard != "":
			err = os.Link(filepath.Join(base, filepath.FromSlash(e.Hard)), p)
		default:
			err = os.Symlink(w.expand(e.Link), p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot describes everything in the world except root/ — but with
// root/<protect> (a read-only folder another mount grants), when given:
// names, types, modes, sizes, times and contents. A step that changes it
// escaped.
func (w world) snapshot(t testing.TB, protect ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(w.snapshotOf(t, w.dir, w.root))
	for _, p := range protect {
		b.WriteString(w.snapshotOf(t, filepath.Join(w.root, p), ""))
	}
	return b.String()
}

// snapshotOf describes what is below dir, skipping skip.
func (w world) snapshotOf(t testing.TB, dir, skip string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var errnoNames = map[experimentalsys.Errno]string{
	0:                       "ok",
	experimentalsys.EACCES:  "EACCES",
	experimentalsys.EBADF:   "EBADF",
	experimentalsys.EEXIST:  "EEXIST",
	experimentalsys.EINVAL:  "EINVAL",
	experimentalsys.EIO:     "EIO",
	experimentalsys.EISDIR:  "EISDIR",
	experimentalsys.ELOOP:   "ELOOP",
	experimentalsys.ENOENT:  "ENOENT",
	experimentalsys.ENOSYS:  "ENOSYS",
	experimentalsys.ENOTDIR: "ENOTDIR",
	experimentalsys.EPERM:   "EPERM",
	experimentalsys.EROFS:   "EROFS",
}

func errnoName(e experimentalsys.Errno) string {
	if n, ok := errnoNames[e]; ok {
		return n
	}
	return fmt.Sprintf("errno %d (%v)", e, e)
}

// typeChar is how the corpus writes a file type: L link, d directory,
// - regular file.
func typeChar(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "L"
	case m.IsDir():
		return "d"
	case m.IsRegular():
		return "-"
	}
	return "?"
}

// readAll reads an open file to its end.
func readAll(f experimentalsys.File) (string, experimentalsys.Errno) {
	var out []byte
	buf := make([]byte, 512)
	for {
		n, errno := f.Read(buf)
		out = append(out, buf[:n]...)
		if errno != 0 || n == 0 {
			return string(out), errno
		}
	}
}

// do runs one step and returns its errno and what it produced.
func do(fsys experimentalsys.FS, s step) (experimentalsys.Errno, string) {
	withFile := func(flag experimentalsys.Oflag, fn func(experimentalsys.File) (experimentalsys.Errno, string)) (experimentalsys.Errno, string) {
		f, errno := fsys.OpenFile(s.Path, flag, 0o644)
		if errno != 0 {
			return errno, ""
		}
		defer f.Close()
		if fn == nil {
			return 0, ""
		}
		return fn(f)
	}
	read := func(f experimentalsys.File) (experimentalsys.Errno, string) {
		data, errno := readAll(f)
		return errno, data
	}
	write := func(f experimentalsys.File) (experimentalsys.Errno, string) {
		_, errno := f.Write([]byte("WRITTEN"))
		return errno, ""
	}
	switch s.Op {
	case "read":
		return withFile(experimentalsys.O_RDONLY, read)
	case "read_nofollow":
		return withFile(experimentalsys.O_RDONLY|experimentalsys.O_NOFOLLOW, read)
	case "read_trunc":
		return withFile(experimentalsys.O_RDONLY|experimentalsys.O_TRUNC, read)
	case "write":
		return withFile(experimentalsys.O_WRONLY|experimentalsys.O_CREAT|experimentalsys.O_TRUNC, write)
	case "create_excl":
		return withFile(experimentalsys.O_WRONLY|experimentalsys.O_CREAT|experimentalsys.O_EXCL, write)
	case "append":
		return withFile(experimentalsys.O_WRONLY|experimentalsys.O_APPEND, write)
	case "write_on_read":
		return withFile(experimentalsys.O_RDONLY, write)
	case "futimens":
		return withFile(experimentalsys.O_RDONLY, func(f experimentalsys.File) (experimentalsys.Errno, string) {
			return f.Utimens(0, 0), ""
		})
	case "list":
		return withFile(experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, func(f experimentalsys.File) (experimentalsys.Errno, string) {
			ents, errno := f.Readdir(-1)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name+":"+typeChar(e.Type))
			}
			slices.Sort(names)
			return errno, strings.Join(names, " ")
		})
	case "stat":
		st, errno := fsys.Stat(s.Path)
		return errno, typeChar(st.Mode)
	case "lstat":
		st, errno := fsys.Lstat(s.Path)
		return errno, typeChar(st.Mode)
	case "readlink":
		dst, errno := fsys.Readlink(s.Path)
		return errno, dst
	case "mkdir":
		return fsys.Mkdir(s.Path, 0o755), ""
	case "rmdir":
		return fsys.Rmdir(s.Path), ""
	case "unlink":
		return fsys.Unlink(s.Path), ""
	case "rename":
		return fsys.Rename(s.Path, s.Arg), ""
	case "link":
		return fsys.Link(s.Path, s.Arg), ""
	case "symlink":
		return fsys.Symlink(s.Arg, s.Path), ""
	case "chmod":
		return fsys.Chmod(s.Path, 0o777), ""
	case "utimens":
		return fsys.Utimens(s.Path, 0, 0), ""
	}
	panic("unknown op " + s.Op)
}

func TestEscapeAttemptsFromTheCorpusStayInsideTheRoot(t *testing.T) {
	t.Parallel()
	c := readCorpus(t)
	if len(c.Cases) < 50 {
		t.Fatalf("the corpus has %d cases; was it truncated?", len(c.Cases))
	}
	for _, tc := range c.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			w := build(t, c)
			var protect []string
			if tc.Protect != "" {
				makeEntries(t, w, w.root, c.ProtectedLayout)
				protect = []string{tc.Protect}
			}
			before := w.snapshot(t, protect...)
			fsys := New(w.root)
			if tc.RO {
				fsys = NewReadOnly(w.root)
			}
			for _, p := range protect {
				fsys.WithReadOnly(filepath.Join(w.root, p))
			}
			t.Cleanup(func() { fsys.Close() })
			for i, s := range tc.Steps {
				s.Path, s.Arg = w.expand(s.Path), w.expand(s.Arg)
				errno, got := do(fsys, s)
				if errnoName(errno) != s.Want {
					t.Errorf("step %d: %s %q: %s, want %s", i, s.Op, s.Path, errnoName(errno), s.Want)
				}
				if s.Data != "" && !strings.Contains(got, w.expand(s.Data)) {
					t.Errorf("step %d: %s %q produced %q, want it to contain %q", i, s.Op, s.Path, got, s.Data)
				}
				if strings.Contains(got, "OUTSIDE") {
					t.Errorf("step %d: %s %q read outside data: %q", i, s.Op, s.Path, got)
				}
				if after := w.snapshot(t, protect...); after != before {
					t.Fatalf("step %d: %s %q changed what is outside the root:\nbefore:\n%s\nafter:\n%s", i, s.Op, s.Path, before, after)
				}
			}
		})
	}
}

func TestADirectoryReplacedAfterMountingIsFollowedOnRefresh(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "mount")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("OLD"), 0o644)
	fsys := New(dir)
	t.Cleanup(func() { fsys.Close() })
	read := func() string {
		errno, data := do(fsys, step{Op: "read", Path: "f.txt"})
		return errnoName(errno) + " " + data
	}
	if got := read(); got != "ok OLD" {
		t.Fatalf("before: %s", got)
	}
	os.Rename(dir, dir+".old")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("NEW"), 0o644)
	if got := read(); got != "ok OLD" {
		t.Fatalf("without Refresh the FS keeps the directory it opened: %s", got)
	}
	fsys.Refresh()
	if got := read(); got != "ok NEW" {
		t.Fatalf("after Refresh: %s", got)
	}
	os.RemoveAll(dir)
	fsys.Refresh()
	if got := read(); got != "ENOENT " {
		t.Fatalf("after the directory is gone: %s", got)
	}
}
