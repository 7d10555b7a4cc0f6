package jstool

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxEngineSize bounds what readTarFile reads: the engine is 637 KB.
const maxEngineSize = 16 << 20

// readTarFile returns the file named name from the gzipped tarball path.
func readTarFile(path, name string) ([]byte, error) {
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
		b, err := io.ReadAll(io.LimitReader(tr, maxEngineSize+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxEngineSize {
			return nil, fmt.Errorf("%s is over %d bytes", name, maxEngineSize)
		}
		return b, nil
	}
}
