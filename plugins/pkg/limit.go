package pkg

import (
	"fmt"

	"github.com/toolhost/toolhost/runtime/config"
)

// maxSignatureBytes caps a downloaded .minisig file; real ones are a few
// hundred bytes.
const maxSignatureBytes = 64 << 10

// ArchiveTooLargeError is a plugin package over the size limit
// (Manager.MaxArchiveBytes, the config's plugin_limits.max_archive_bytes).
// It is returned before anything is written to the cache.
type ArchiveTooLargeError struct {
	Ref string
	// Size is the package's size in bytes, or -1 when the server did not
	// say and the download was stopped at the limit.
	Size  int64
	Limit int64
}

func (e *ArchiveTooLargeError) Error() string {
	size, raise := fmt.Sprintf("%d bytes (%s)", e.Size, megabytes(e.Size)), e.Size
	if e.Size < 0 {
		size, raise = "more than "+fmt.Sprintf("%d bytes (%s)", e.Limit, megabytes(e.Limit)), 2*e.Limit
	}
	return fmt.Sprintf("plugin package %s is %s, over the limit of %d bytes (%s); nothing was written to the cache. "+
		`If you trust it, raise the limit in the config: "plugin_limits": {"max_archive_bytes": %d}`,
		e.Ref, size, e.Limit, megabytes(e.Limit), raise)
}

func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// archiveLimit is m.MaxArchiveBytes, or the config's default.
func (m *Manager) archiveLimit() int64 {
	return config.PluginLimits{MaxArchiveBytes: m.MaxArchiveBytes}.ArchiveBytes()
}
