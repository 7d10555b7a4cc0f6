package pkg

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/toolhost/toolhost/plugins/wasm"
)

// Archive limits: a plugin is a manifest and a few modules.
const (
	maxArchiveBytes = 256 << 20
	maxArchiveFiles = 1000
)

// packTime is the modification time of every archive entry, so packing
// the same files gives the same bytes whenever and wherever it runs.
var packTime = time.Unix(0, 0).UTC()

// Pack builds the archive of the plugin in dir: toolhost-plugin.json and
// the modules it lists, nothing else, as a .tar.gz with sorted entries,
// fixed times, owners and modes, and a gzip header without name or time.
// The same files packed by the same toolhost give the same bytes, so the
// same digest.
func Pack(dir string) ([]byte, wasm.Manifest, error) {
	m, err := wasm.ReadManifest(dir)
	if err != nil {
		return nil, wasm.Manifest{}, err
	}
	names := append([]string{wasm.ManifestFile}, m.Modules...)
	sort.Strings(names)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return nil, wasm.Manifest{}, fmt.Errorf("pack %s: %w", dir, err)
		}
		hdr := &tar.Header{Name: path.Clean(name), Mode: 0o644, Size: int64(len(data)), ModTime: packTime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, wasm.Manifest{}, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, wasm.Manifest{}, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, wasm.Manifest{}, err
	}
	if err := zw.Close(); err != nil {
		return nil, wasm.Manifest{}, err
	}
	return buf.Bytes(), m, nil
}

// archiveContent is a read archive: the manifest and each file's bytes.
type archiveContent struct {
	manifest wasm.Manifest
	files    map[string][]byte
}

// readArchive reads a plugin archive, refusing anything but regular files
// at clean relative paths, and checks that every module it lists is there.
func readArchive(data []byte) (archiveContent, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return archiveContent{}, fmt.Errorf("not a .tar.gz plugin archive: %w", err)
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	var total int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return archiveContent{}, fmt.Errorf("read plugin archive: %w", err)
		}
		name := path.Clean(strings.TrimPrefix(hdr.Name, "./"))
		switch {
		case hdr.Typeflag == tar.TypeDir:
			continue
		case hdr.Typeflag != tar.TypeReg:
			return archiveContent{}, fmt.Errorf("plugin archive entry %s is not a regular file", hdr.Name)
		case path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../"):
			return archiveContent{}, fmt.Errorf("plugin archive entry %s points outside the plugin", hdr.Name)
		case len(files) >= maxArchiveFiles:
			return archiveContent{}, fmt.Errorf("plugin archive holds more than %d files", maxArchiveFiles)
		}
		total += hdr.Size
		if total > maxArchiveBytes {
			return archiveContent{}, fmt.Errorf("plugin archive unpacks to more than %d MB", maxArchiveBytes>>20)
		}
		b, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil {
			return archiveContent{}, fmt.Errorf("read plugin archive: %w", err)
		}
		files[name] = b
	}
	raw, ok := files[wasm.ManifestFile]
	if !ok {
		return archiveContent{}, fmt.Errorf("plugin archive has no %s at its root", wasm.ManifestFile)
	}
	m, err := wasm.ParseManifest(raw)
	if err != nil {
		return archiveContent{}, err
	}
	for _, mod := range m.Modules {
		if _, ok := files[path.Clean(mod)]; !ok {
			return archiveContent{}, fmt.Errorf("plugin archive lacks the module %s its manifest lists", mod)
		}
	}
	return archiveContent{manifest: m, files: files}, nil
}

// unpackedDir is where the modules of the archive with digest are
// unpacked.
func (c Cache) unpackedDir(digest string) string {
	h, _ := hexOf(digest)
	return filepath.Join(c.Dir, "unpacked", h)
}

// unpack writes an archive's modules under the cache's unpacked/<hex>/
// and returns the plugin source, each module with the sha256 it has in
// the archive, which the loader checks again. A module already there is
// hashed and kept when it matches; one that was changed, replaced by
// something other than a regular file, or deleted from an unpacked
// directory is written again and returned in restored, as it was found,
// so the caller can tell the user. A first unpack restores nothing.
func (c Cache) unpack(digest string, data []byte) (src wasm.Bundle, restored []Problem, err error) {
	ac, err := readArchive(data)
	if err != nil {
		return wasm.Bundle{}, nil, err
	}
	if _, err := hexOf(digest); err != nil {
		return wasm.Bundle{}, nil, err
	}
	dir := c.unpackedDir(digest)
	_, statErr := os.Lstat(dir)
	existed := statErr == nil
	src = wasm.Bundle{Manifest: ac.manifest, Dir: dir}
	for _, mod := range ac.manifest.Modules {
		b := ac.files[path.Clean(mod)]
		sum := sha256.Sum256(b)
		want := "sha256:" + hex.EncodeToString(sum[:])
		p := filepath.Join(dir, filepath.FromSlash(path.Clean(mod)))
		if _, got, ferr := inspectFile(p, want); ferr != nil {
			if err := c.clearNonRegular(p, ferr); err != nil {
				return wasm.Bundle{}, restored, fmt.Errorf("unpack plugin: %w", err)
			}
			if err := writeAtomic(p, b); err != nil {
				return wasm.Bundle{}, restored, fmt.Errorf("unpack plugin: %w", err)
			}
			if existed {
				restored = append(restored, Problem{Plugin: ac.manifest.Name, Kind: ProblemModule, File: p, Want: want, Got: got, Err: ferr})
			}
		}
		src.Modules = append(src.Modules, wasm.ModuleFile{Name: mod, Path: p, SHA256: hex.EncodeToString(sum[:])})
	}
	return src, restored, nil
}
