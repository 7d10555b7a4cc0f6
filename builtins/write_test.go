package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/session"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(t *testing.T, e *ftEnv) // may create and read files
		path    string
		content string
		wantErr string
	}{
		{name: "a new file is created with its parent directories", path: "x/y/z.txt", content: "hi\n"},
		{name: "an unread existing file is refused", path: "old.txt", content: "new\n",
			prepare: func(t *testing.T, e *ftEnv) { e.write(t, "old.txt", "old\n") },
			wantErr: "You must read the file"},
		{name: "a read file is overwritten", path: "old.txt", content: "new\n",
			prepare: func(t *testing.T, e *ftEnv) { e.readAndStamp(t, e.write(t, "old.txt", "old\n")) }},
		{name: "a file whose size changed since the read is refused", path: "old.txt", content: "new\n",
			prepare: func(t *testing.T, e *ftEnv) {
				p := e.write(t, "old.txt", "old\n")
				e.readAndStamp(t, p)
				e.write(t, "old.txt", "changed by someone else\n")
			},
			wantErr: "has been modified since it was last read"},
		{name: "a file whose mtime changed since the read is refused", path: "old.txt", content: "new\n",
			prepare: func(t *testing.T, e *ftEnv) {
				p := e.write(t, "old.txt", "old\n")
				e.readAndStamp(t, p)
				later := time.Now().Add(time.Hour)
				if err := os.Chtimes(p, later, later); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "Please read the file again"},
		{name: "a directory is refused", path: "d", content: "x",
			prepare: func(t *testing.T, e *ftEnv) {
				if err := os.Mkdir(filepath.Join(e.dir, "d"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			if tt.prepare != nil {
				tt.prepare(t, e)
			}
			before, _ := os.ReadFile(filepath.Join(e.dir, tt.path))
			res, err := e.call(t, Write(), writeParams{FilePath: tt.path, Content: tt.content})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				after, _ := os.ReadFile(filepath.Join(e.dir, tt.path))
				if string(after) != string(before) {
					t.Fatal("a refused write changed the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.content(t, tt.path); got != tt.content {
				t.Fatalf("content = %q", got)
			}
			if !strings.Contains(res.Metadata["diff"].(string), "+"+strings.TrimSuffix(tt.content, "\n")) {
				t.Errorf("diff = %q", res.Metadata["diff"])
			}
			// The write stamps the file: writing again needs no new read.
			if _, err := e.call(t, Write(), writeParams{FilePath: tt.path, Content: "again\n"}); err != nil {
				t.Errorf("second write: %v", err)
			}
		})
	}
}

func TestWriteKeepsModeAndAsksEditWithTheDiff(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	p := e.write(t, "bin/run", "#!/bin/sh\necho 1\n")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	e.readAndStamp(t, p)
	if _, err := e.call(t, Write(), writeParams{FilePath: p, Content: "#!/bin/sh\necho 2\n"}); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, want 0750", info.Mode().Perm())
	}
	req := e.asks[len(e.asks)-1]
	if req.Permission != permissionEdit || req.Patterns[0] != "bin/run" {
		t.Fatalf("request = %+v", req)
	}
	if d, _ := req.Metadata["diff"].(string); !strings.Contains(d, "-echo 1\n+echo 2\n") {
		t.Errorf("diff = %q", d)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("the atomic write left files behind: %v", entries)
	}
}

func TestWriteFollowsASymlink(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	target := e.write(t, "real.txt", "a\n")
	link := filepath.Join(e.dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	e.readAndStamp(t, link)
	if _, err := e.call(t, Write(), writeParams{FilePath: link, Content: "b\n"}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if got := e.content(t, "real.txt"); got != "b\n" {
		t.Errorf("target = %q", got)
	}
}

func TestReadStampsAreKeptInTheSessionStore(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	store, err := session.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	e.tc.Store = store
	p := e.write(t, "f.txt", "a\n")
	e.readAndStamp(t, p)
	b, ok, err := store.Get(t.Context(), e.tc.SessionID, fileTimeNamespace, p)
	if err != nil || !ok {
		t.Fatalf("no stamp in the store: %v %v", ok, err)
	}
	for _, key := range []string{`"mtime"`, `"size":2`, `"readAt"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("stamp %s lacks %s", b, key)
		}
	}
	if _, err := e.call(t, Write(), writeParams{FilePath: p, Content: "b\n"}); err != nil {
		t.Fatalf("write after a stored read: %v", err)
	}
	// Another session has not read the file.
	other := *e.tc
	other.SessionID = "someone-else"
	e2 := &ftEnv{dir: e.dir, tc: &other}
	if _, err := e2.call(t, Write(), writeParams{FilePath: p, Content: "c\n"}); err == nil || !strings.Contains(err.Error(), "You must read") {
		t.Fatalf("other session: err = %v", err)
	}
}

func TestWriteKeepsTheFilesBOMAndLineEnding(t *testing.T) {
	t.Parallel()
	const bom = "\uFEFF"
	tests := []struct {
		name    string
		before  string // "" with exists false: no file
		exists  bool
		content string
		want    string
	}{
		{name: "a BOM is kept when the new content has none", exists: true, before: bom + "old\n", content: "new\n", want: bom + "new\n"},
		{name: "a BOM in both is written once", exists: true, before: bom + "old\n", content: bom + "new\n", want: bom + "new\n"},
		{name: "a BOM the new content brings is kept", exists: true, before: "old\n", content: bom + "new\n", want: bom + "new\n"},
		{name: "a file without BOM gets none", exists: true, before: "old\n", content: "new\n", want: "new\n"},
		{name: "a CRLF file stays CRLF when the content uses LF", exists: true, before: "a\r\nb\r\n", content: "x\ny\n", want: "x\r\ny\r\n"},
		{name: "an LF file stays LF when the content uses CRLF", exists: true, before: "a\nb\n", content: "x\r\ny\r\n", want: "x\ny\n"},
		{name: "content mixing LF and CRLF is written as given", exists: true, before: "a\r\nb\r\n", content: "x\ny\r\n", want: "x\ny\r\n"},
		{name: "content without line breaks is written as given", exists: true, before: "a\r\nb\r\n", content: "x", want: "x"},
		{name: "a file without line breaks has no ending to keep", exists: true, before: "a", content: "x\r\ny\r\n", want: "x\r\ny\r\n"},
		{name: "an empty file has no ending to keep", exists: true, before: "", content: "x\r\n", want: "x\r\n"},
		{name: "BOM and CRLF are both kept", exists: true, before: bom + "a\r\n", content: "x\ny\n", want: bom + "x\r\ny\r\n"},
		{name: "a CRLF file with a stray LF counts as CRLF, as edit says", exists: true, before: "a\r\nb\nc\r\n", content: "x\n", want: "x\r\n"},
		{name: "a new file is written exactly as given", content: bom + "x\r\ny\n", want: bom + "x\r\ny\n"},
		{name: "a lone CR is not a line break", exists: true, before: "a\r\n", content: "x\ry\n", want: "x\ry\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			p := filepath.Join(e.dir, "f.txt")
			if tt.exists {
				e.readAndStamp(t, e.write(t, "f.txt", tt.before))
			}
			res, err := e.call(t, Write(), writeParams{FilePath: p, Content: tt.content})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.content(t, "f.txt"); got != tt.want {
				t.Fatalf("file = %q, want %q", got, tt.want)
			}
			if d := res.Metadata["diff"].(string); strings.Contains(d, "\r\n") || strings.Contains(d, bom) {
				t.Errorf("the diff shows CR or BOM: %q", d)
			}
		})
	}
}
