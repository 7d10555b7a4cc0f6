//go:build !linux

package wasm

import "time"

var clockStart = time.Now()

// threadCPU is wall time where a thread's CPU clock is not at hand.
func threadCPU() time.Duration { return time.Since(clockStart) }
