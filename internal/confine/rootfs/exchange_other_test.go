//go:build !linux

package rootfs

import "errors"

// exchange is unsupported off Linux; callers swap in two steps instead.
func exchange(a, b string) error { return errors.ErrUnsupported }
