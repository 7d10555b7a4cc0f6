//go:build !unix

package server

import (
	"io"
	"os"
)

// stdinInput is f: only Unix pipes are moved to the poller (stdin_unix.go,
// pollinput_linux.go).
func stdinInput(f *os.File) io.ReadCloser { return f }
