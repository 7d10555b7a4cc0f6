//go:build !unix

package server

import "os"

// pollable is f: only Unix pipes are moved to the poller (pollable_unix.go).
func pollable(f *os.File) *os.File { return f }
