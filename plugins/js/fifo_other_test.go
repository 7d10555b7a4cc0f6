//go:build !unix

package js

import "errors"

func mkfifo(string) error { return errors.New("FIFOs are a unix feature") }
