//go:build !linux

package e2e

import "os"

// RunTerminal runs the binary at a pseudo-terminal; only Linux is
// supported, elsewhere the test is skipped (failed with CI=true).
func (p *Project) RunTerminal(typed string, args ...string) (string, int) {
	p.T.Helper()
	if os.Getenv("CI") == "true" {
		p.T.Fatal("RunTerminal needs Linux")
	}
	p.T.Skip("RunTerminal needs Linux")
	return "", 0
}
