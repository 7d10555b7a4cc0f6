package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOriginNamesTheFileAndLineThatSetAKey(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "toolhost.jsonc")
	content := "{\n  // tools\n  \"tools\": {\n    \"webfetch\": false\n  },\n  \"agent\": {\"plan\": {\"tools\": {\"bash\": false}}}\n}\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(LoadOptions{Directory: dir, Worktree: dir, Home: home, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path []string
		line int
		ok   bool
	}{
		{[]string{"tools", "webfetch"}, 4, true},
		{[]string{"agent", "plan", "tools", "bash"}, 6, true},
		{[]string{"tools", "grep"}, 0, false},
	}
	for _, tc := range tests {
		src, line, ok := l.Config.Origin(tc.path...)
		if ok != tc.ok || line != tc.line || (ok && src != path) {
			t.Errorf("Origin(%q) = %s, %d, %v; want %s, %d, %v", tc.path, src, line, ok, path, tc.line, tc.ok)
		}
	}
	if _, _, ok := Default().Origin("tools"); ok {
		t.Error("the defaults claim an origin")
	}
}
