package builtins

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/runtime"
)

// newFileMode is the mode of files the tools create. Existing files keep
// their mode.
const newFileMode fs.FileMode = 0o644

// tempAttempts is how many temporary names are tried before giving up.
const tempAttempts = 100

// projectDir is the directory the file tools' writes are confined to:
// the worktree, or the working directory when no worktree is known.
func projectDir(tc *runtime.Context) string {
	return cmp.Or(tc.Worktree, tc.Directory)
}

// writeTarget is where a write to path lands: path with every symlink
// followed (a link stays a link and its target gets the new content). A
// file tool resolves it once, checks external_directory for it, and hands
// the same string to writeFileAtomic, so the file written is the file
// that was checked even if a link on the way changes in between.
func writeTarget(path string) string { return resolvePath(path) }

// removeTarget is what deleting path removes: path in its resolved
// directory, the last component not followed (a link is removed, not its
// target).
func removeTarget(path string) string {
	return filepath.Join(resolvePath(filepath.Dir(path)), filepath.Base(path))
}

// checkWriteTarget resolves path with writeTarget and asks the
// external_directory permission for the result, which it returns.
func checkWriteTarget(ctx context.Context, tc *runtime.Context, path string) (string, error) {
	target := writeTarget(path)
	return target, tc.CheckExternalDirectory(ctx, target, false)
}

// writeFileAtomic replaces target's content with data so that a crash or a
// full disk never leaves half a file: data goes to a temporary file in the
// same directory (same file system, so rename is atomic), is synced, gets
// the old file's permission bits, and is renamed over target. Missing
// parent directories are created. Ownership is not carried over (an
// unprivileged process cannot chown); the file belongs to whoever writes.
//
// target comes from writeTarget and has been checked. Every step happens
// inside an os.Root (openat semantics): the project directory when target
// lies in it, or, for a target outside that external_directory allowed,
// the nearest existing directory above it. Nothing is resolved again by
// path, so a directory on the way that is swapped for a symlink during the
// call makes the write fail instead of landing the temporary file or the
// content where the link points. project may be "" (no project: the
// second case always applies).
func writeFileAtomic(project, target string, data []byte) error {
	return writeFileAtomicMode(project, target, data, 0, false)
}

// writeFileAtomicMode is writeFileAtomic with the mode set to mode when
// setMode, instead of kept or defaulted.
func writeFileAtomicMode(project, target string, data []byte, mode fs.FileMode, setMode bool) error {
	path := target
	root, rel, err := openConfined(project, target)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer root.Close()
	if !setMode {
		mode = newFileMode
		if info, err := root.Stat(rel); err == nil {
			if info.IsDir() {
				return fmt.Errorf("write %s: path is a directory, not a file", path)
			}
			mode = info.Mode().Perm()
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	dir := filepath.Dir(rel)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: create parent directories: %w", path, err)
	}
	tmp, tmpRel, err := createTemp(root, dir, filepath.Base(rel))
	if err != nil {
		return fmt.Errorf("write %s: create temporary file: %w", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			root.Remove(tmpRel)
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
	if err := root.Rename(tmpRel, rel); err != nil {
		return fmt.Errorf("write %s: rename temporary file into place: %w", path, err)
	}
	ok = true
	return nil
}

// removeFile deletes target (from removeTarget, checked) inside the same
// kind of root writeFileAtomic uses. A file already gone is not an error.
func removeFile(project, target string) error {
	path := target
	root, rel, err := openConfined(project, target)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("delete %s: %w", path, err)
	}
	defer root.Close()
	if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", path, err)
	}
	return nil
}

// createTemp creates a new file named ".<base>.tmp-<random>" in dir under
// root, readable and writable only by its owner until its mode is set.
func createTemp(root *os.Root, dir, base string) (*os.File, string, error) {
	for range tempAttempts {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("no free temporary name in %s after %d attempts", dir, tempAttempts)
}

// openConfined opens the root a change to target (a path whose directories
// are resolved) is confined to: the resolved project directory when target
// lies in it, else the nearest existing directory above target. rel is
// target relative to that root; its directories contain no symlinks when
// it is computed, so an os.Root method meeting one later means something
// was swapped, and the root refuses to be left.
func openConfined(project, target string) (*os.Root, string, error) {
	base := ""
	if project != "" {
		if p, err := filepath.EvalSymlinks(project); err == nil && fspath.Within(p, target) && p != target {
			base = p
		}
	}
	if base == "" {
		base = existingParent(target)
	}
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return nil, "", err
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, "", err
	}
	return root, rel, nil
}

// resolvePath follows the symlinks of p, or of its longest existing
// prefix when p does not exist yet (the rest is appended as is).
func resolvePath(p string) string { return fspath.Real(p) }

// existingParent is the nearest directory above p that exists.
func existingParent(p string) string {
	for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return dir
		}
	}
}
