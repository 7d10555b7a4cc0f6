package source

import (
	"fmt"
	"os"
)

// Stamp is path's modification time and size, "" when it is gone: what a
// Watcher compares to tell that a file it loaded changed.
func Stamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s/%d", st.ModTime(), st.Size())
}
