package builtins

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

func TestAnAlwaysAnswerApprovesOnlyTheFileOrDirectoryAskedAbout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		permission string
		call       func(e *ftEnv) (runtime.Tool, any)
		want       []string
	}{
		{"reading .env approves .env, not every file", permissionRead,
			func(e *ftEnv) (runtime.Tool, any) { return Read(), readParams{FilePath: e.write(t, ".env", "K=1\n")} },
			[]string{".env"}},
		{"reading a directory approves it and what is below it", permissionRead,
			func(e *ftEnv) (runtime.Tool, any) {
				e.write(t, "src/a.go", "package a\n")
				return Read(), readParams{FilePath: filepath.Join(e.dir, "src")}
			},
			[]string{"src", "src/*"}},
		{"writing a file named with a star approves that name alone", permissionEdit,
			func(e *ftEnv) (runtime.Tool, any) {
				return Write(), writeParams{FilePath: filepath.Join(e.dir, "a*b"), Content: "x"}
			},
			[]string{"a?b"}},
		{"writing a file named ~ does not approve the home directory", permissionEdit,
			func(e *ftEnv) (runtime.Tool, any) {
				return Write(), writeParams{FilePath: filepath.Join(e.dir, "~", "x"), Content: "x"}
			},
			[]string{"?/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			tool, args := tc.call(e)
			if _, err := e.call(t, tool, args); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range e.asks {
				if r.Permission == tc.permission {
					got = append(got, r.Always...)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("always = %q, want %q", got, tc.want)
			}
			for _, p := range got {
				if permission.Match(p, "README.md") {
					t.Errorf("always pattern %q approves README.md too", p)
				}
			}
		})
	}
}
