package search

import (
	"path"
	"testing"
)

func TestMatchGlobMatchesNamesAtAnyDepthAndPathsFromTheRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, rel string
		want         bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "a/b/main.go", true},
		{"*.{ts,tsx}", "src/app.tsx", true},
		{"*.go", "main.go.txt", false},
		{"src/*.ts", "src/app.ts", true},
		{"src/*.ts", "lib/src/app.ts", false},
		{"src/**/*.ts", "src/a/b/app.ts", true},
		{"a/*.go", "main.go", false},
	}
	for _, tt := range tests {
		name := path.Base(tt.rel)
		if got := MatchGlob(tt.pattern, tt.rel, name); got != tt.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.pattern, tt.rel, got, tt.want)
		}
	}
}
