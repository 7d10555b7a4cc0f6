package resources

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPathsBecomeURIsAndTemplates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path     string
		wantURI  string
		wantVars []string
	}{
		{"docs/guide.md", "docs://guide.md", nil},
		{"notes.txt", "resource://notes.txt", nil},
		{"test/static-text", "test://static-text", nil},
		{"a b/x", "", nil}, // "a b" is no URI scheme
		{"Docs/x", "", nil},
		{"docs/my file.md", "docs://my%20file.md", nil},
		{"test/template/{id}/data", "test://template/{id}/data", []string{"id"}},
		{"db/{table}/{row}.json", "db://{table}/{row}.json", []string{"table", "row"}},
		{"db/{a}/{a}", "", nil},     // a variable twice
		{"db/{a b}/x", "", nil},     // not a variable name
		{"db/{unclosed/x", "", nil}, // a stray brace
		{"db/x y/{id}", "", nil},    // a template segment that would need escaping
		{"db/{id}}/x", "", nil},     // a stray closing brace
		{"db/pre{id}post/x", "db://pre{id}post/x", []string{"id"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r, ok := resourceOf(tt.path)
			if tt.wantURI == "" {
				if ok {
					t.Fatalf("served as %q, want not served", r.URI)
				}
				return
			}
			if !ok || r.URI != tt.wantURI || strings.Join(r.Vars, ",") != strings.Join(tt.wantVars, ",") {
				t.Fatalf("got %q %v (ok %v), want %q %v", r.URI, r.Vars, ok, tt.wantURI, tt.wantVars)
			}
		})
	}
}

func TestAFolderServesItsFilesAndFillsTemplates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "test/static-text", "plain words\n")
	write(t, dir, "test/pixel.png", "\x89PNG\r\n\x1a\n\x00\x00")
	write(t, dir, "test/template/{id}/data", `{"id":"{id}","other":"{other}"}`)
	write(t, dir, "test/template/42/data", "the concrete one wins")
	write(t, dir, "test/template/{id}/data.json", `{"id":"{id}"}`)
	write(t, dir, "test/.secret", "hidden")
	write(t, dir, ".hidden/x/y", "hidden")
	f := NewFolder(dir)

	list, err := f.List()
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list {
		uris = append(uris, r.URI)
	}
	want := "test://pixel.png test://static-text test://template/42/data test://template/{id}/data test://template/{id}/data.json"
	if strings.Join(uris, " ") != want {
		t.Errorf("listed %v, want %s", uris, want)
	}

	tests := []struct {
		name, uri, wantText, wantMIME string
		wantBlob                      bool
	}{
		{"a text file is text", "test://static-text", "plain words\n", "text/plain", false},
		{"an image is a blob with its type", "test://pixel.png", "", "image/png", true},
		{"a template fills its variables and leaves other braces", "test://template/7/data", `{"id":"7","other":"{other}"}`, "text/plain", false},
		{"a concrete file wins over a template", "test://template/42/data", "the concrete one wins", "text/plain", false},
		{"a JSON template escapes the value", `test://template/a%22b/data.json`, `{"id":"a\"b"}`, "application/json", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := f.Read(tt.uri)
			if err != nil {
				t.Fatal(err)
			}
			if c.MIMEType != tt.wantMIME || c.IsText == tt.wantBlob || (!tt.wantBlob && c.Text != tt.wantText) {
				t.Errorf("read %+v, want text %q type %s", c, tt.wantText, tt.wantMIME)
			}
		})
	}
	vals, err := f.Values("test://template/{id}/data", "id", "4")
	if err != nil || strings.Join(vals, ",") != "42" {
		t.Errorf("completion = %v, %v; want [42]", vals, err)
	}
}

// TestReadsStayInsideTheFolder: whatever a client names — a climb, an
// absolute path, a hidden file, a link out, a value with a slash — nothing
// outside the folder is read, and big files are refused.
func TestReadsStayInsideTheFolder(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	write(t, outside, "secret", "TOP SECRET")
	dir := t.TempDir()
	write(t, dir, "test/ok", "fine")
	write(t, dir, "tmpl/{id}", "value {id}")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "test", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../"+filepath.Base(outside)+"/secret", filepath.Join(dir, "test", "rel")); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", MaxRead+1)
	write(t, dir, "test/big", big)
	f := NewFolder(dir)
	corpus, err := os.ReadFile(filepath.Join("testdata", "hostile_uris.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, line := range strings.Split(string(corpus), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			uris = append(uris, strings.ReplaceAll(line, "OUTSIDE", strings.TrimPrefix(outside, "/")))
		}
	}
	if c, err := f.Read("test://ok"); err != nil || c.Text != "fine" {
		t.Fatalf("the harmless file: %+v, %v", c, err)
	}
	for _, uri := range uris {
		t.Run(uri, func(t *testing.T) {
			c, err := f.Read(uri)
			if err == nil {
				t.Fatalf("read %q: %+v", uri, c)
			}
			if strings.Contains(c.Text, "SECRET") {
				t.Fatal("read the secret")
			}
		})
	}
	c, err := f.Read("tmpl://a%2Fb")
	if err == nil && strings.Contains(c.Text, "/") {
		t.Errorf("a value with a slash filled a template: %q", c.Text)
	}
	for _, name := range []string{"../x", "/etc/passwd", "test/../../x", ".hidden", "a\\b", ""} {
		if _, err := ReadFile(dir, name); err == nil {
			t.Errorf("ReadFile(%q) succeeded", name)
		}
	}
	list, _ := f.List()
	for _, r := range list {
		if r.Name == "test/link" || r.Name == "test/rel" || strings.HasPrefix(r.Name, "out/") {
			t.Errorf("listed %s, a link that leads out", r.Name)
		}
	}
}

func TestOutputsServeOnlyWhatTheServerSaved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "tool_1", "full output one")
	write(t, dir, "tool_2", "someone else's output")
	o := NewOutputs(dir)
	uri, ok := o.Add(filepath.Join(dir, "tool_1"))
	if !ok || uri != OutputPrefix+"tool_1" {
		t.Fatalf("Add = %q, %v", uri, ok)
	}
	if _, ok := o.Add(filepath.Join(t.TempDir(), "tool_3")); ok {
		t.Error("a file outside the output directory was added")
	}
	c, err := o.Read(uri)
	if err != nil || c.Text != "full output one" {
		t.Fatalf("read = %+v, %v", c, err)
	}
	if _, err := o.Read(OutputPrefix + "tool_2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an output this server did not save was served: %v", err)
	}
	if _, err := o.Read(OutputPrefix + "..%2Ftool_1"); err == nil {
		t.Error("a climbing URI was served")
	}
	if l := o.List(); len(l) != 1 || l[0].URI != uri {
		t.Errorf("list = %+v", l)
	}
}

// A judge decides on the file as opened, through the name it was opened
// by, before a byte is read: the file it judged is the file read, even when
// a name is swapped between a look and the read (a symbolic link inside
// the folder is followed to its target, whose Stat the judge gets).
func TestAJudgeDecidesOnTheOpenedFileBeforeAnythingIsRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "docs/guide.md", "# Guide")
	write(t, dir, "docs/other.md", "SECRET")
	if err := os.Symlink("other.md", filepath.Join(dir, "docs", "alias.md")); err != nil {
		t.Fatal(err)
	}
	other, err := os.Stat(filepath.Join(dir, "docs", "other.md"))
	if err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("refused")
	var judged []string
	judge := func(name string, info os.FileInfo) error {
		judged = append(judged, name)
		if os.SameFile(info, other) {
			return refuse
		}
		return nil
	}
	f := NewFolder(dir)
	if c, err := f.ReadJudged("docs://guide.md", judge); err != nil || c.Text != "# Guide" {
		t.Errorf("an allowed file: %q, %v", c.Text, err)
	}
	if c, err := f.ReadJudged("docs://alias.md", judge); !errors.Is(err, refuse) || c.Text != "" {
		t.Errorf("the judged file through a link: %q, %v; want the judge's refusal", c.Text, err)
	}
	if strings.Join(judged, " ") != "docs/guide.md docs/alias.md" {
		t.Errorf("judged %q, want each file by the name it was opened by", judged)
	}
}
