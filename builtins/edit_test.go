package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// ftEnv is a project directory and a call context for the file tools, with
// every permission request recorded and allowed (unless deny is set).
type ftEnv struct {
	dir  string
	tc   *runtime.Context
	mu   sync.Mutex
	asks []permission.Request
	deny string // a permission to reject
}

// newFTEnv makes a project in a temporary directory. NewContext gives each
// environment a session store of its own, so the read stamps of tests never
// mix.
func newFTEnv(t testing.TB) *ftEnv {
	t.Helper()
	e := &ftEnv{dir: t.TempDir()}
	e.tc = runtime.NewContext(runtime.Context{Directory: e.dir, Worktree: e.dir, SessionID: "ses-" + t.Name()}, nil,
		func(_ context.Context, req permission.Request) error {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.asks = append(e.asks, req)
			if req.Permission == e.deny {
				return &permission.RejectedError{Permission: req.Permission}
			}
			return nil
		})
	return e
}

// call runs tool with args (a struct or map, marshalled to JSON).
func (e *ftEnv) call(t testing.TB, tool runtime.Tool, args any) (runtime.Result, error) {
	t.Helper()
	def, err := tool.Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{Name: "build"}})
	if err != nil {
		t.Fatalf("init %s: %v", tool.ID(), err)
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return def.Execute(context.Background(), b, e.tc)
}

// write creates a file in the project and returns its absolute path.
func (e *ftEnv) write(t testing.TB, rel, content string) string {
	t.Helper()
	p := filepath.Join(e.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readAndStamp reads a file with the read tool, as a model must before it
// edits the file.
func (e *ftEnv) readAndStamp(t testing.TB, path string) {
	t.Helper()
	if _, err := e.call(t, Read(), readParams{FilePath: path}); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
}

func (e *ftEnv) content(t testing.TB, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEditReplacesText(t *testing.T) {
	t.Parallel()
	const bom = "\uFEFF"
	tests := []struct {
		name      string
		file      string
		old, new  string
		all       bool
		want      string
		wantErr   string
		wantMatch string
	}{
		{name: "an exact unique match is replaced", file: "a\nb\nc\n", old: "b", new: "B", want: "a\nB\nc\n", wantMatch: "exact"},
		{name: "replaceAll changes every occurrence", file: "x = 1\nx = 2\n", old: "x", new: "y", all: true, want: "y = 1\ny = 2\n"},
		{name: "several matches without replaceAll are refused", file: "x\nx\n", old: "x", new: "y", wantErr: "Found multiple matches for oldString"},
		{name: "a missing oldString is refused", file: "a\n", old: "zzz", new: "y", wantErr: "Could not find oldString in the file"},
		{name: "identical strings are refused", file: "a\n", old: "a", new: "a", wantErr: "No changes to apply"},
		{name: "a CRLF file stays CRLF when the strings use LF", file: "one\r\ntwo\r\nthree\r\n", old: "one\ntwo\n", new: "1\n2\n", want: "1\r\n2\r\nthree\r\n"},
		{name: "a CRLF file stays CRLF when the strings use CRLF", file: "one\r\ntwo\r\n", old: "one\r\n", new: "uno\r\nmas\r\n", want: "uno\r\nmas\r\ntwo\r\n"},
		{name: "a CRLF file stays CRLF when old is CRLF and new is LF", file: "a\r\nb\r\nc\r\n", old: "a\r\nb", new: "A\nB\nB2", want: "A\r\nB\r\nB2\r\nc\r\n"},
		{name: "an LF file stays LF when the strings use CRLF", file: "a\nb\nc\n", old: "a\r\nb", new: "x\r\ny", want: "x\ny\nc\n"},
		{name: "a BOM is kept when the strings have none", file: bom + "a\nb\n", old: "a", new: "A", want: bom + "A\nb\n"},
		{name: "a BOM in the strings is not duplicated", file: bom + "a\nb\n", old: bom + "a", new: bom + "A", want: bom + "A\nb\n"},
		{name: "a BOM and CRLF are both kept with LF strings", file: bom + "a\r\nb\r\n", old: "a\nb", new: "c\nd", want: bom + "c\r\nd\r\n"},
		{name: "a file without BOM gets none from the strings", file: "a\n", old: bom + "a", new: bom + "b", want: "b\n"},
		{name: "indentation mistakes are forgiven by the line-trimmed replacer", file: "func f() {\n\treturn 1\n}\n", old: "  return 1", new: "\treturn 2", want: "func f() {\n\treturn 2\n}\n", wantMatch: "line-trimmed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			p := e.write(t, "f.txt", tt.file)
			e.readAndStamp(t, p)
			res, err := e.call(t, Edit(), editParams{FilePath: "f.txt", OldString: tt.old, NewString: tt.new, ReplaceAll: tt.all})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				if got := e.content(t, "f.txt"); got != tt.file {
					t.Fatalf("a failed edit changed the file to %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.content(t, "f.txt"); got != tt.want {
				t.Fatalf("file = %q, want %q", got, tt.want)
			}
			if tt.wantMatch != "" {
				if got := res.Metadata["replacers"].([]string)[0]; got != tt.wantMatch {
					t.Errorf("matched by %q, want %q", got, tt.wantMatch)
				}
			}
		})
	}
}

func TestEditEmptyOldStringCreatesAFileInNewDirectories(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	res, err := e.call(t, Edit(), editParams{FilePath: "a/b/c/new.go", OldString: "", NewString: "package c\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.content(t, "a/b/c/new.go"); got != "package c\n" {
		t.Fatalf("content = %q", got)
	}
	if res.Metadata["created"] != true || res.Metadata["additions"] != 1 {
		t.Errorf("metadata = %v, want created and 1 addition", res.Metadata)
	}
	// The creating session may now edit the file without reading it.
	if _, err := e.call(t, Edit(), editParams{FilePath: "a/b/c/new.go", OldString: "package c", NewString: "package d"}); err != nil {
		t.Fatalf("edit after create: %v", err)
	}
}

func TestEditAsksTheEditPermissionWithTheDiff(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	p := e.write(t, "src/main.go", "package main\n\nfunc main() {}\n")
	e.readAndStamp(t, p)
	res, err := e.call(t, Edit(), editParams{FilePath: p, OldString: "func main() {}", NewString: "func main() {\n\tprintln(1)\n}"})
	if err != nil {
		t.Fatal(err)
	}
	var req permission.Request
	for _, r := range e.asks {
		if r.Permission == permissionEdit {
			req = r
		}
	}
	if len(req.Patterns) != 1 || req.Patterns[0] != "src/main.go" || len(req.Always) != 1 || req.Always[0] != "src/main.go" {
		t.Fatalf("request = %+v, want pattern and always src/main.go", req)
	}
	diff, _ := req.Metadata["diff"].(string)
	for _, want := range []string{"--- src/main.go", "-func main() {}", "+\tprintln(1)"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if req.Metadata["filepath"] != p {
		t.Errorf("filepath = %v", req.Metadata["filepath"])
	}
	if res.Metadata["additions"] != 3 || res.Metadata["deletions"] != 1 {
		t.Errorf("additions/deletions = %v/%v, want 3/1", res.Metadata["additions"], res.Metadata["deletions"])
	}
}

func TestEditRejectedPermissionLeavesTheFile(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	e.deny = permissionEdit
	p := e.write(t, "f.txt", "a\n")
	e.readAndStamp(t, p)
	_, err := e.call(t, Edit(), editParams{FilePath: p, OldString: "a", NewString: "b"})
	if permission.Kind(err) != "rejected" {
		t.Fatalf("err = %v, want the rejection unchanged", err)
	}
	if got := e.content(t, "f.txt"); got != "a\n" {
		t.Fatalf("file changed to %q", got)
	}
}

func TestEditRequiresAFreshRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(t *testing.T, e *ftEnv, p string)
		wantErr string
	}{
		{"an unread file is refused", func(*testing.T, *ftEnv, string) {}, "You must read the file"},
		{"a file changed after the read is refused", func(t *testing.T, e *ftEnv, p string) {
			e.readAndStamp(t, p)
			if err := os.WriteFile(p, []byte("hello world, changed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "has been modified since it was last read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			p := e.write(t, "f.txt", "hello world\n")
			tt.prepare(t, e, p)
			before := e.content(t, "f.txt")
			_, err := e.call(t, Edit(), editParams{FilePath: p, OldString: "hello", NewString: "bye"})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if e.content(t, "f.txt") != before {
				t.Fatal("the refused edit changed the file")
			}
		})
	}
}

func TestEditErrorsForMissingFilesAndDirectories(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	if err := os.Mkdir(filepath.Join(e.dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := e.call(t, Edit(), editParams{FilePath: "nope.txt", OldString: "a", NewString: "b"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing file: err = %v", err)
	}
	if _, err := e.call(t, Edit(), editParams{FilePath: "d", OldString: "a", NewString: "b"}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: err = %v", err)
	}
}

func TestConcurrentEditsOfOneFileAreAllApplied(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	const n = 16
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	p := e.write(t, "f.txt", sb.String())
	e.readAndStamp(t, p)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := e.call(t, Edit(), editParams{FilePath: p, OldString: fmt.Sprintf("line %d\n", i), NewString: fmt.Sprintf("edited %d\n", i)})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got := e.content(t, "f.txt")
	for i := range n {
		if !strings.Contains(got, fmt.Sprintf("edited %d\n", i)) {
			t.Errorf("edit %d was lost:\n%s", i, got)
		}
	}
}

func TestEditKeepsTheFileMode(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	p := e.write(t, "run.sh", "echo a\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	e.readAndStamp(t, p)
	if _, err := e.call(t, Edit(), editParams{FilePath: p, OldString: "echo a", NewString: "echo b"}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o755 {
		t.Fatalf("mode = %v, want 0755", info.Mode().Perm())
	}
}

func TestEditOutsideTheProjectAsksExternalDirectory(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	outside := t.TempDir()
	p := filepath.Join(outside, "x.txt")
	if err := os.WriteFile(p, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.deny = runtime.PermissionExternalDirectory
	_, err := e.call(t, Edit(), editParams{FilePath: p, OldString: "a", NewString: "b"})
	if permission.Kind(err) != "rejected" {
		t.Fatalf("err = %v, want the external_directory rejection", err)
	}
}
