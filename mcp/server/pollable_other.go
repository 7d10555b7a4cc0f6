//go:build !unix

package server

import (
	"io"
	"os"
)

// stdinInput is f: only Unix pipes are read with poll(2) (pollinput_unix.go).
func stdinInput(f *os.File) io.ReadCloser { return f }
