package wasm

import (
	"errors"
)

// ErrTimeout, ErrMemoryLimit, ErrOutputLimit and ErrTrap classify a failed
// call; test with errors.Is. The errors returned wrap them with the tool,
// the limit and how to raise it.
var (
	ErrTimeout     = errors.New("wasm tool timed out")
	ErrMemoryLimit = errors.New("wasm tool exceeded its memory limit")
	ErrOutputLimit = errors.New("wasm tool output exceeded its limit")
	ErrTrap        = errors.New("wasm tool trapped")
	ErrHostFunc    = errors.New("wasm tool host function failed")
)

// GuestError is an error the guest reported itself (Extism error_set, or a
// non-zero return): a message for the model, not a host failure.
type GuestError struct {
	Tool    string
	Message string
}

func (e *GuestError) Error() string { return e.Message }
