//go:build !unix

package server_test

import (
	"testing"
	"time"
)

// selfCPU skips: the process's CPU time is read with getrusage(2).
func selfCPU(b *testing.B) time.Duration {
	b.Skip("the process's CPU time is measured on Unix systems only")
	return 0
}
