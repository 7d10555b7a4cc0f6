package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// entriesOf lists dir with the walk's getdents reader, sorted by name.
func entriesOf(t testing.TB, dir string) []dirEntry {
	t.Helper()
	d, err := openWalkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	var sc dirScratch
	got, err := d.entries(&sc)
	if err != nil {
		t.Fatal(err)
	}
	got = slices.Clone(got)
	slices.SortFunc(got, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return got
}

// readDirEntries is os.ReadDir's answer in the same form.
func readDirEntries(t testing.TB, dir string) []dirEntry {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []dirEntry
	for _, e := range des {
		want = append(want, dirEntry{name: e.Name(), typ: e.Type()})
	}
	return want
}

// The getdents reader lists what os.ReadDir lists, with the same types,
// for every kind of entry, odd names, and a directory too large for one
// read of the buffer.
func TestDirEntriesAgreeWithReadDir(t *testing.T) {
	dir := t.TempDir()
	names := []string{
		"plain.go", ".hidden", "with space", "new\nline", "tab\tname", "ünïcödé",
		"\xff\xfeinvalid-utf8", "...", "..x", ".x", "-dash", "a" + strings.Repeat("b", 250),
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Enough long names that the listing takes several getdents reads.
	for i := range 600 {
		n := fmt.Sprintf("%03d-%s", i, strings.Repeat("n", 200))
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		defer l.Close()
	}

	got, want := entriesOf(t, dir), readDirEntries(t, dir)
	if len(got) < 600 {
		t.Fatalf("listed %d entries, want more than 600", len(got))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("getdents listing differs from os.ReadDir:\n got %d entries\nwant %d entries", len(got), len(want))
	}
	for _, e := range got {
		if e.name == "." || e.name == ".." {
			t.Fatalf("listed %q", e.name)
		}
	}
}

// The same on a real tree: every directory of the Go source tree.
func TestDirEntriesAgreeWithReadDirOnTheGoTree(t *testing.T) {
	root := filepath.Join(goroot(t), "src")
	dirs := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		dirs++
		if got, want := entriesOf(t, path), readDirEntries(t, path); !slices.Equal(got, want) {
			t.Errorf("%s: getdents listing differs from os.ReadDir (%d and %d entries)", path, len(got), len(want))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if dirs < 100 {
		t.Fatalf("walked %d directories of %s", dirs, root)
	}
}

func goroot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// dirent builds one linux_dirent64 record.
func dirent(ino uint64, typ byte, name string) []byte {
	n := direntName + len(name) + 1
	n = (n + 7) &^ 7
	rec := make([]byte, n)
	binary.NativeEndian.PutUint64(rec[direntIno:], ino)
	binary.NativeEndian.PutUint16(rec[direntReclen:], uint16(n))
	rec[direntType] = typ
	copy(rec[direntName:], name)
	return rec
}

// Records the kernel never writes, or writes for entries gone or special,
// are skipped or end the parse; a DT_UNKNOWN entry gets its type from a
// stat, and one that no longer exists is left out.
func TestParseDirentsTakesOnlyWellFormedRecords(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "unknown-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "unknown-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := openWalkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()

	bad := func(reclen uint16) []byte {
		rec := dirent(9, syscall.DT_REG, "after-bad")
		binary.NativeEndian.PutUint16(rec[direntReclen:], reclen)
		return rec
	}
	for _, tc := range []struct {
		name string
		buf  []byte
		want []dirEntry
	}{
		{"plain", dirent(1, syscall.DT_REG, "a.go"), []dirEntry{{"a.go", 0}}},
		{"dot entries", slices.Concat(dirent(1, syscall.DT_DIR, "."), dirent(2, syscall.DT_DIR, ".."), dirent(3, syscall.DT_DIR, "d")), []dirEntry{{"d", fs.ModeDir}}},
		{"deleted entry", slices.Concat(dirent(0, syscall.DT_REG, "gone"), dirent(3, syscall.DT_REG, "kept")), []dirEntry{{"kept", 0}}},
		{"empty name", dirent(1, syscall.DT_REG, ""), nil},
		{"name with a slash", slices.Concat(dirent(1, syscall.DT_REG, "../../etc/passwd"), dirent(2, syscall.DT_REG, "ok")), []dirEntry{{"ok", 0}}},
		{"every type", slices.Concat(
			dirent(1, syscall.DT_LNK, "l"), dirent(2, syscall.DT_FIFO, "p"), dirent(3, syscall.DT_SOCK, "s"),
			dirent(4, syscall.DT_CHR, "c"), dirent(5, syscall.DT_BLK, "b"), dirent(6, 77, "odd")),
			[]dirEntry{{"l", fs.ModeSymlink}, {"p", fs.ModeNamedPipe}, {"s", fs.ModeSocket}, {"c", fs.ModeDevice | fs.ModeCharDevice}, {"b", fs.ModeDevice}, {"odd", fs.ModeIrregular}}},
		{"unknown type, stat'ed", slices.Concat(
			dirent(1, syscall.DT_UNKNOWN, "unknown-file"), dirent(2, syscall.DT_UNKNOWN, "unknown-dir"), dirent(3, syscall.DT_UNKNOWN, "vanished")),
			[]dirEntry{{"unknown-file", 0}, {"unknown-dir", fs.ModeDir}}},
		{"reclen too short", slices.Concat(dirent(1, syscall.DT_REG, "first"), bad(8)), []dirEntry{{"first", 0}}},
		{"reclen zero", slices.Concat(dirent(1, syscall.DT_REG, "first"), bad(0)), []dirEntry{{"first", 0}}},
		{"reclen past the end", slices.Concat(dirent(1, syscall.DT_REG, "first"), bad(4096)), []dirEntry{{"first", 0}}},
		{"truncated header", slices.Concat(dirent(1, syscall.DT_REG, "first"), []byte{1, 2, 3}), []dirEntry{{"first", 0}}},
		{"name without NUL fills the record", func() []byte {
			rec := dirent(1, syscall.DT_REG, "abcde")
			for i := direntName; i < len(rec); i++ {
				rec[i] = 'z'
			}
			return rec
		}(), []dirEntry{{strings.Repeat("z", 32-direntName), 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names, spans := d.parseDirents(tc.buf, nil, nil)
			var got []dirEntry
			for _, sp := range spans {
				got = append(got, dirEntry{string(names[sp.off : sp.off+sp.n]), sp.typ})
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// Whatever the bytes, parsing never panics, and every name it keeps is a
// name a path can be built from: not empty, not . or .., without a NUL or
// a slash.
func FuzzParseDirents(f *testing.F) {
	f.Add(slices.Concat(dirent(1, syscall.DT_REG, "a"), dirent(2, syscall.DT_DIR, "..")))
	f.Add(dirent(0, syscall.DT_REG, "x"))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 19, 0, 8, 'a'})
	d := dirHandle{fd: -1}
	f.Fuzz(func(t *testing.T, buf []byte) {
		// DT_UNKNOWN would stat through fd -1 and fail: such entries are
		// kept as irregular or dropped, never crash.
		names, spans := d.parseDirents(buf, nil, nil)
		end := 0
		for _, sp := range spans {
			if sp.off != end || sp.n <= 0 || sp.off+sp.n > len(names) {
				t.Fatalf("span %+v outside names (%d bytes), previous end %d", sp, len(names), end)
			}
			end = sp.off + sp.n
			name := names[sp.off:end]
			if bytes.IndexByte(name, 0) >= 0 || bytes.IndexByte(name, '/') >= 0 || string(name) == "." || string(name) == ".." {
				t.Fatalf("kept name %q", name)
			}
		}
		if end != len(names) {
			t.Fatalf("names has %d bytes, spans cover %d", len(names), end)
		}
	})
}

// openat refuses a name with a NUL rather than opening a prefix of it.
func TestDirOpenatRefusesNUL(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := openWalkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	var scratch []byte
	if fd, err := d.openat("a\x00b", syscall.O_RDONLY, &scratch); err == nil {
		syscall.Close(fd)
		t.Fatal("opened a name with a NUL in it")
	}
	fd, err := d.openat("a", syscall.O_RDONLY|syscall.O_CLOEXEC, &scratch)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
}

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// Every directory the walk opens is closed again, whether the walk ends
// or is cancelled with subdirectories still queued (each holds its
// parent open until it is opened itself).
func TestWalkClosesEveryDirectory(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		for j := range 5 {
			d := filepath.Join(root, fmt.Sprintf("d%02d", i), fmt.Sprintf("e%d", j), "f")
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "x.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := openFDs(t)
	for _, stopAfter := range []int{0, 1, 7, 50, 1 << 30} {
		for _, workers := range []int{1, 3} {
			ctx, cancel := context.WithCancel(context.Background())
			var mu sync.Mutex
			seen := 0
			walk(ctx, root, Options{Workers: workers}, func(int, Entry) {
				mu.Lock()
				defer mu.Unlock()
				if seen++; seen >= stopAfter {
					cancel()
				}
			})
			cancel()
			if after := openFDs(t); after != before {
				t.Fatalf("cancelled after %d files with %d workers: %d descriptors open, %d before", stopAfter, workers, after, before)
			}
		}
	}
}
