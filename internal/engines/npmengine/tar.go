package npmengine

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// readTarFile returns the file named name from the gzipped tarball path,
// refusing one over max bytes.
func readTarFile(path, name string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("no %s in the package", name)
		}
		if err != nil {
			return nil, err
		}
		if h.Name != name {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, int64(max)+1))
		if err != nil {
			return nil, err
		}
		if len(b) > max {
			return nil, fmt.Errorf("%s is over %d bytes", name, max)
		}
		return b, nil
	}
}
