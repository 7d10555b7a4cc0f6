package builtins

import (
	"os"
	"path/filepath"

	"github.com/toolhost/toolhost/internal/fspath"
	"github.com/toolhost/toolhost/runtime"
)

// openChecked opens a file a tool has checked for reading: the path with
// every symlink resolved once, opened inside an os.Root of the project when
// it lies there (openat semantics: a link swapped in after the check that
// points outside makes the open fail), or as resolved when
// external_directory allowed a place outside. Paths resolve once per call
// (Context.RealPath): the check before resolved the same ones.
func openChecked(tc *runtime.Context, path string) (*os.File, error) {
	target := tc.RealPath(path)
	project := projectDir(tc)
	if project != "" {
		root := tc.RealPath(project)
		if fspath.Within(root, target) {
			rel, err := filepath.Rel(root, target)
			if err != nil {
				return nil, err
			}
			if f, ok, err := openBeneath(root, rel); ok {
				return f, err
			}
			r, err := os.OpenRoot(root)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return r.Open(rel)
		}
	}
	return os.Open(target)
}
