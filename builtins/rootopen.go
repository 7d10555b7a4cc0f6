package builtins

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/runtime"
)

// openChecked opens a file a tool has checked for reading: the path with
// every symlink resolved once, opened inside an os.Root of the project when
// it lies there (openat semantics: a link swapped in after the check that
// points outside makes the open fail), or as resolved when
// external_directory allowed a place outside. Either way only a regular
// file is opened, and the open never waits. Paths resolve once per call
// (Context.RealPath): the check before resolved the same ones.
func openChecked(tc *runtime.Context, path string) (io.ReadCloser, error) {
	target := tc.RealPath(path)
	project := projectDir(tc)
	if project != "" {
		root := tc.RealPath(project)
		if fspath.Within(root, target) {
			rel, err := fspath.Rel(root, target)
			if err != nil {
				return nil, err
			}
			if f, ok, err := openBeneath(root, rel); ok {
				return f, err
			}
			return openRegularIn(root, rel)
		}
	}
	return openRegularIn(filepath.Dir(target), filepath.Base(target))
}

// openRegularIn opens rel inside dir, without blocking and only if it is a
// regular file (fspath.OpenRegular): a FIFO or device swapped in after
// the tool looked is refused rather than waited on.
func openRegularIn(dir, rel string) (*os.File, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := fspath.OpenRegular(r, rel, os.O_RDONLY)
	if errors.Is(err, fspath.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, rel), err)
	}
	return f, err
}

// openedIs reports whether f, opened by openChecked, is the file info
// describes (a Stat taken before the permission check): the same device
// and inode, so what was judged by its names is what is read. True where
// the system does not tell a file's identity.
func openedIs(f io.ReadCloser, info fs.FileInfo) bool {
	want, ok := fspath.IDOf(info)
	if !ok {
		return true
	}
	var got fspath.FileID
	switch f := f.(type) {
	case interface{ id() fspath.FileID }:
		got = f.id()
	case *os.File:
		st, err := f.Stat()
		if err != nil {
			return false
		}
		if got, ok = fspath.IDOf(st); !ok {
			return false
		}
	default:
		return false
	}
	return got == want
}
