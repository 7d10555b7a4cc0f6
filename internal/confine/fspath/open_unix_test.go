//go:build unix

package fspath

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpenRegularRefusesWhatCouldWaitForEver(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct {
		name, rel string
		flag      int
		refused   bool
	}{
		{"a regular file is opened", "plain.txt", os.O_RDONLY, false},
		{"a FIFO to read from", "fifo", os.O_RDONLY, true},
		{"a FIFO nothing reads, to write to", "fifo", os.O_WRONLY, true},
		{"a directory", ".", os.O_RDONLY, true},
	}
	for _, tt := range tests {
		f, err := OpenRegular(root, tt.rel, tt.flag)
		if f != nil {
			f.Close()
		}
		if refused := errors.Is(err, ErrNotRegular); refused != tt.refused || (!tt.refused && err != nil) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
