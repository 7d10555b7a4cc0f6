package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
)

func TestCheckExternalDirectoryAsksOnlyForPathsOutsideTheProject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := filepath.Join(root, "project")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(project, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink inside the project that leads out of it.
	if err := os.Symlink(outside, filepath.Join(project, "escape")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		isDir   bool
		extra   map[string]any
		pattern string // "" means no request
	}{
		{name: "a file in the project needs nothing", path: "sub/a.go"},
		{name: "a file that does not exist yet in the project needs nothing", path: "new/dir/b.go"},
		{name: "a file outside asks for its directory", path: filepath.Join(outside, "x.txt"), pattern: filepath.Join(outside, "*")},
		{name: "a directory outside asks for itself", path: outside, isDir: true, pattern: filepath.Join(outside, "*")},
		{name: "dot-dot out of the project asks", path: "../outside/y.txt", pattern: filepath.Join(outside, "*")},
		{name: "a symlink leading out of the project asks", path: "escape/z.txt", pattern: filepath.Join(project, "escape", "*")},
		{name: "the bypass flag skips the check", path: filepath.Join(outside, "x.txt"), extra: map[string]any{ExtraBypassCwdCheck: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []permission.Request
			tcx := NewContext(Context{Directory: project, Worktree: project, Extra: tc.extra}, nil,
				func(_ context.Context, req permission.Request) error {
					got = append(got, req)
					return nil
				})
			if err := tcx.CheckExternalDirectory(context.Background(), tcx.ResolvePath(tc.path), tc.isDir); err != nil {
				t.Fatal(err)
			}
			if tc.pattern == "" {
				if len(got) != 0 {
					t.Fatalf("asked %v, want no request", got)
				}
				return
			}
			if len(got) != 1 || got[0].Permission != PermissionExternalDirectory || got[0].Patterns[0] != tc.pattern {
				t.Fatalf("requests = %+v, want one for %s", got, tc.pattern)
			}
		})
	}
}

func TestSchemaForGeneratesRequiredPropertiesWithDescriptions(t *testing.T) {
	t.Parallel()
	type args struct {
		FilePath string `json:"filePath" jsonschema:"description=The absolute path"`
		Limit    int    `json:"limit,omitempty"`
	}
	cs, err := CompileSchema("t", SchemaFor[args]())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.validate("t", []byte(`{"filePath":"a","limit":3}`)); err != nil {
		t.Errorf("valid args rejected: %v", err)
	}
	if _, err := cs.validate("t", []byte(`{"limit":3}`)); err == nil {
		t.Error("missing required filePath accepted")
	}
	if s := string(SchemaFor[args]()); !contains(s, `"description":"The absolute path"`) || contains(s, "$schema") {
		t.Errorf("schema = %s", s)
	}
	if s := string(SchemaFor[struct{}]()); !contains(s, `"properties":{}`) {
		t.Errorf("empty args schema lacks properties: %s", s)
	}
}

func contains(s, sub string) bool { return len(s) >= len(sub) && (s == sub || indexOf(s, sub) >= 0) }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
