package rootfs

import "golang.org/x/sys/unix"

// exchange swaps two names atomically (renameat2 RENAME_EXCHANGE), so a
// directory becomes a link and back with no moment where neither is
// there. It fails on file systems without RENAME_EXCHANGE.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
