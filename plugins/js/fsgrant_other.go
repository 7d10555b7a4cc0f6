//go:build !unix

package js

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
)

// mkdirNoFollow makes rel below dir through an os.Root, which follows a
// link only while it stays inside dir. Without openat's O_NOFOLLOW here,
// a link swapped in after locate is judged by os.Root alone.
func mkdirNoFollow(dir, rel string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.MkdirAll(rel, 0o755)
}

// writeNoFollow writes data to a new file beside rel and renames it over
// rel: where the number of a file's names cannot be read, a write never
// changes an existing file in place, so another name of it (a hard link
// under a read-only grant) keeps its bytes.
func writeNoFollow(dir, rel string, data []byte) error {
	if len(components(rel)) == 0 {
		return errors.New("is a folder granted to the tool, not a file")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if fi, err := root.Lstat(rel); err == nil && !fi.Mode().IsRegular() {
		return errNotRegular
	}
	var b [8]byte
	rand.Read(b[:])
	tmp := filepath.Join(filepath.Dir(rel), ".toolhost-"+hex.EncodeToString(b[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = root.Rename(tmp, rel)
	}
	if werr != nil {
		root.Remove(tmp)
	}
	return werr
}
