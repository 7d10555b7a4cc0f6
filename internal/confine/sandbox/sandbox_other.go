//go:build !linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
)

// Available reports that this system has no Landlock.
func Available() (abi int, err error) {
	return 0, fmt.Errorf("%w (%s); bash commands run under the permission rules alone", ErrUnsupported, runtime.GOOS)
}

// Command is never used where Available fails; it refuses.
func Command(Policy, string, []string, []string) (*exec.Cmd, func() error, error) {
	_, err := Available()
	return nil, nil, err
}

// SocketFilterSupported reports that network false cannot be enforced
// here: there is no sandbox.
func SocketFilterSupported() error {
	_, err := Available()
	return err
}

// Start is never used where Available fails; it refuses.
func Start(Policy, Spawn) (*Process, error) {
	_, err := Available()
	return nil, err
}

// Prestart does nothing where there is no sandbox.
func Prestart() {}

// DropSpare does nothing where there is no sandbox.
func DropSpare() {}
