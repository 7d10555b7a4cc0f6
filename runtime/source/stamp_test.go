package source_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/runtime/source"
)

func TestAStampChangesWithTheFileAndIsEmptyOnceItIsGone(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tool.ts")
	if got := source.Stamp(path); got != "" {
		t.Fatalf("stamp of a missing file = %q, want empty", got)
	}
	if err := os.WriteFile(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := source.Stamp(path)
	if first == "" {
		t.Fatal("stamp of an existing file is empty")
	}
	if err := os.WriteFile(path, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := source.Stamp(path); again == first {
		t.Errorf("stamp %q unchanged after the file grew", again)
	}
}
