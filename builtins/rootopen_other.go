//go:build !linux

package builtins

import "io"

// openBeneath is Linux's openat2 shortcut (rootopen_linux.go); elsewhere
// os.Root opens every file.
func openBeneath(root, rel string) (io.ReadCloser, bool, error) { return nil, false, nil }
