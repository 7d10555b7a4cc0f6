// Package fstree writes a tree of files for a test: the fixture the
// search engine's tests and the glob, grep and list tools' tests share.
package fstree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write creates files (slash-separated names relative to the tree, their
// contents as values) under a new temporary directory and returns it; a
// name ending in "/" makes an empty directory.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
