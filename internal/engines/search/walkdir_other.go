//go:build !linux

package search

import "os"

// dirHandle is a directory the walk holds open while it visits the
// directory's entries. Where bare descriptors are available (Unix), fd is
// its descriptor and ok is true, for openForGrep.
type dirHandle struct {
	f  *os.File
	fd int
	ok bool
}

func (d dirHandle) close() { d.f.Close() }

// entries lists the directory in the order the file system gives. The
// returned slice is sc.ents, valid until the next call with sc. On an
// error the entries read before it come with it.
func (d dirHandle) entries(sc *dirScratch) ([]dirEntry, error) {
	des, err := d.f.ReadDir(-1)
	ents := sc.ents[:0]
	for _, e := range des {
		ents = append(ents, dirEntry{name: e.Name(), typ: e.Type()})
	}
	sc.ents = ents
	return ents, err
}
