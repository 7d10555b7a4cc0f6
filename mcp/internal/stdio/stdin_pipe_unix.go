//go:build unix

package stdio

import "os"

// isPipeOrSocket reports whether f is a pipe or a socket, as an MCP
// client's stdin always is; a terminal or a regular file is read as it is.
func isPipeOrSocket(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}
