//go:build !unix

package stdio

import (
	"io"
	"os"
)

// StdinInput is f: only Unix pipes are moved to the poller (stdin_unix.go,
// pollinput_linux.go).
func StdinInput(f *os.File) io.ReadCloser { return f }
