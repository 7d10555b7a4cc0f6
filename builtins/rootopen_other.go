//go:build !linux

package builtins

import "os"

// openBeneath is Linux's openat2 shortcut (rootopen_linux.go); elsewhere
// os.Root opens every file.
func openBeneath(root, rel string) (*os.File, bool, error) { return nil, false, nil }
