package builtins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// newFileMode is the mode of files the tools create. Existing files keep
// their mode.
const newFileMode fs.FileMode = 0o644

// writeFileAtomic replaces path's content with data so that a crash or a
// full disk never leaves half a file: data goes to a temporary file in the
// same directory (same file system, so rename is atomic), is synced, gets
// the old file's permission bits, and is renamed over path. Missing parent
// directories are created. A symlink is followed, so the link stays a link
// and its target gets the new content. Ownership is not carried over (an
// unprivileged process cannot chown); the file belongs to whoever writes.
func writeFileAtomic(path string, data []byte) error {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	mode := newFileMode
	if info, err := os.Stat(target); err == nil {
		if info.IsDir() {
			return fmt.Errorf("write %s: path is a directory, not a file", path)
		}
		mode = info.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: create parent directories: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: create temporary file: %w", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: set mode %v: %w", path, mode, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("write %s: rename temporary file into place: %w", path, err)
	}
	ok = true
	return nil
}
