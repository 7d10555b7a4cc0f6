//go:build !unix

package jstool

import "errors"

func mkfifo(string) error { return errors.New("FIFOs are a unix feature") }
