//go:build !unix

package rootfs

import (
	"io/fs"
	"os"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// walkUp cannot ask the system where an open folder is without openat;
// a writable mount beside read-only ones refuses every change here.
func walkUp(d, root *os.File, prot []*os.File) experimentalsys.Errno {
	return experimentalsys.EPERM
}

// walkUpMeets cannot tell here: fail closed.
func walkUpMeets(p, d *os.File) bool { return true }

// links cannot tell here: as if linked, so a write is refused.
func links(fi fs.FileInfo) uint64 { return 2 }

// renameAt is never reached here: walkUp refuses first.
func renameAt(fd *os.Root, from string, td *os.Root, to string) experimentalsys.Errno {
	return experimentalsys.EPERM
}

// linkAt is never reached here: walkUp refuses first.
func linkAt(od *os.Root, old string, nd *os.Root, name string) experimentalsys.Errno {
	return experimentalsys.EPERM
}
