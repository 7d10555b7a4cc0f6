package fspath

import (
	"errors"
	"os"
)

// ErrNotRegular is OpenRegular's refusal of a FIFO, socket or device.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens rel in root without blocking (a FIFO with no other end
// would hold the open itself, where no time limit or cancellation reaches)
// and refuses what is not a regular file with ErrNotRegular, judged on the
// opened file, not on a Stat before the open that a swap could get around.
// The JS tools' file access and the file tools' reads open through it.
func OpenRegular(root *os.Root, rel string, flag int) (*os.File, error) {
	f, err := root.OpenFile(rel, flag|ONonblock, 0o644)
	if err != nil {
		if errors.Is(err, errNoReader) {
			return nil, ErrNotRegular // a FIFO nothing reads
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, ErrNotRegular
	}
	return f, nil
}
