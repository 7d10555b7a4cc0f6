//go:build !linux

package rootfs

import (
	"os"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// futimens is unsupported here: setting times by descriptor needs
// utimensat with a NULL path, which only Linux offers, and setting them
// by name would resolve the name again.
func futimens(*os.File, int64, int64) experimentalsys.Errno {
	return experimentalsys.ENOSYS
}
