package prompts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/content/resources"
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

func TestSkillsAndCommandsAreFoundLaterDirectoriesWinning(t *testing.T) {
	t.Parallel()
	global, project := t.TempDir(), t.TempDir()
	write(t, global, "skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Work with PDFs\n---\nUse pdftotext.\n")
	write(t, global, "command/review.md", "---\ndescription: old review\n---\nold")
	write(t, project, "commands/review.md", "---\ndescription: Review a file\n---\nReview $ARGUMENTS carefully.")
	write(t, project, "command/plain.md", "Just text, no front matter.")
	write(t, project, "command/bad name.md", "x")
	write(t, project, "command/undeclared.md", "---\ndescription: x\n---\nuses ${nope}")
	write(t, project, "command/broken.md", "---\ndescription: [unclosed\n---\nx")
	got, errs := Discover([]string{global, project})
	var names []string
	for _, p := range got {
		names = append(names, p.Name+":"+p.Kind)
	}
	if strings.Join(names, " ") != "pdf:skill plain:command review:command" {
		t.Errorf("found %v", names)
	}
	if len(errs) != 3 {
		t.Errorf("errors = %v, want the bad name, the undeclared ${nope} and the broken front matter", errs)
	}
	for _, p := range got {
		switch p.Name {
		case "review":
			if p.Description != "Review a file" || len(p.Arguments) != 1 || p.Arguments[0].Name != ArgumentsName {
				t.Errorf("review = %+v", p)
			}
		case "pdf":
			if p.Template != "Use pdftotext." || p.Description != "Work with PDFs" {
				t.Errorf("pdf = %+v", p)
			}
		}
	}
}

type fakeResolver struct{}

func (fakeResolver) File(path string) (resources.Content, error) {
	switch path {
	case "img/a.png":
		return resources.Content{URI: "file:///p/img/a.png", MIMEType: "image/png", Blob: []byte{1}}, nil
	case "big.bin":
		return resources.Content{URI: "file:///p/big.bin", MIMEType: "application/octet-stream", Blob: make([]byte, MaxEmbedBytes/2+1)}, nil
	case "notes.md":
		return resources.Content{URI: "file:///p/notes.md", MIMEType: "text/markdown", Text: "notes", IsText: true}, nil
	case "$1", "${uri}": // files whose names read as placeholders
		return resources.Content{URI: "file:///p/" + path, MIMEType: "text/plain", Text: "placeholder-named", IsText: true}, nil
	}
	return resources.Content{}, fmt.Errorf("%w: %s", resources.ErrNotFound, path)
}

func (fakeResolver) Resource(uri string) (resources.Content, error) {
	if uri == "test://doc" {
		return resources.Content{URI: uri, MIMEType: "text/plain", Text: "doc", IsText: true}, nil
	}
	return resources.Content{}, fmt.Errorf("%w: %s", resources.ErrNotFound, uri)
}

func TestExpandFillsArgumentsAndEmbedsReferences(t *testing.T) {
	t.Parallel()
	named := Prompt{Name: "n", Kind: KindCommand, Arguments: []Argument{{Name: "a", Required: true}, {Name: "uri"}},
		Template: "@img/a.png @notes.md. See @${uri} for a='${a}' ($1/$2) all=$ARGUMENTS mail me@example.com @missing.txt"}
	positional := Prompt{Name: "p", Kind: KindCommand, Arguments: []Argument{{Name: ArgumentsName}}, Template: "first=$1 second=$2 third=$3 all=$ARGUMENTS"}
	skill := Prompt{Name: "s", Kind: KindSkill, Template: "Use @img/a.png and ${a} as written."}
	tests := []struct {
		name       string
		p          Prompt
		args       map[string]string
		wantText   string
		wantEmbeds []string
		wantErr    error
	}{
		{"named arguments, positional words and references", named, map[string]string{"a": "x y", "uri": "test://doc"},
			"@img/a.png @notes.md. See @test://doc for a='x y' (x/y) all=x y test://doc mail me@example.com @missing.txt",
			[]string{"file:///p/img/a.png", "file:///p/notes.md", "test://doc"}, nil},
		{"positional arguments split on spaces", positional, map[string]string{ArgumentsName: "one two"}, "first=one second=two third= all=one two", nil, nil},
		{"a value is never expanded again", positional, map[string]string{ArgumentsName: "$2 ${a} $ARGUMENTS"}, "first=$2 second=${a} third=$ARGUMENTS all=$2 ${a} $ARGUMENTS", nil, nil},
		{"a skill is its instructions as written", skill, nil, "Use @img/a.png and ${a} as written.", nil, nil},
		{"a missing required argument is an error", named, map[string]string{"uri": "test://doc"}, "", nil, ErrMissingArgument},
		{"an unknown argument is an error", named, map[string]string{"a": "1", "zzz": "2"}, "", nil, ErrUnknownArgument},
		{"an argument may not name a project file", named, map[string]string{"a": "1", "uri": "notes.md"}, "", nil, ErrBadReference},
		{"an argument may not climb out", named, map[string]string{"a": "1", "uri": "../../etc/passwd"}, "", nil, ErrBadReference},
		{"an argument must name a served resource", named, map[string]string{"a": "1", "uri": "file:///etc/passwd"}, "", nil, ErrBadReference},
		{"an argument that reads as its own placeholder still names no file", named, map[string]string{"a": "1", "uri": "${uri}"}, "", nil, ErrBadReference},
		{"a word that reads as its own placeholder still names no file", Prompt{Name: "w", Kind: KindCommand, Arguments: []Argument{{Name: ArgumentsName}}, Template: "@$1"},
			map[string]string{ArgumentsName: "$1"}, "", nil, ErrBadReference},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ex, err := Expand(tt.p, tt.args, fakeResolver{})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ex.Text != tt.wantText {
				t.Errorf("text = %q\nwant   %q", ex.Text, tt.wantText)
			}
			var uris []string
			for _, e := range ex.Embeds {
				uris = append(uris, e.URI)
			}
			if strings.Join(uris, " ") != strings.Join(tt.wantEmbeds, " ") {
				t.Errorf("embeds = %v, want %v", uris, tt.wantEmbeds)
			}
		})
	}
}

func TestAPromptEmbedsAtMostMaxEmbedBytes(t *testing.T) {
	t.Parallel()
	one := Prompt{Name: "one", Kind: KindCommand, Template: "@big.bin"}
	if _, err := Expand(one, nil, fakeResolver{}); err != nil {
		t.Fatalf("one big file: %v", err)
	}
	two := Prompt{Name: "two", Kind: KindCommand, Template: "@big.bin @big.bin"}
	if _, err := Expand(two, nil, fakeResolver{}); err == nil || !strings.Contains(err.Error(), "embeds more than") {
		t.Fatalf("two big files: %v", err)
	}
}

func TestCompleteOffersTheDeclaredValues(t *testing.T) {
	t.Parallel()
	p := Prompt{Name: "c", Arguments: []Argument{{Name: "city", Values: []string{"paris", "park", "rome"}}}}
	got, err := Complete(p, "city", "par")
	if err != nil || strings.Join(got, ",") != "paris,park" {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := Complete(p, "nope", ""); !errors.Is(err, ErrUnknownArgument) {
		t.Errorf("unknown argument: %v", err)
	}
}

// FuzzExpand: no template and no arguments make Expand panic, read a file
// an argument named, or leave a placeholder of a given argument unfilled.
func FuzzExpand(f *testing.F) {
	f.Add("@${u} $1 ${a} $ARGUMENTS", "x", "test://doc")
	f.Add("@notes.md @@ @", "$1", "notes.md")
	f.Add("${a}${a}$9$0", "${a}", "")
	f.Fuzz(func(t *testing.T, tmpl, a, u string) {
		p := Prompt{Name: "f", Kind: KindCommand, Arguments: []Argument{{Name: "a"}, {Name: "u"}}, Template: tmpl}
		ex, err := Expand(p, map[string]string{"a": a, "u": u}, fakeResolver{})
		if err != nil {
			return
		}
		for _, e := range ex.Embeds {
			if strings.HasPrefix(e.URI, "file://") && strings.Contains(tmpl, "@${u}") && u == strings.TrimPrefix(e.URI, "file:///p/") {
				t.Fatalf("an argument named a file: %q", u)
			}
		}
	})
}
