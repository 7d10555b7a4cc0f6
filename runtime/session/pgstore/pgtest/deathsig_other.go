//go:build unix && !linux

package pgtest

import "syscall"

// postmasterAttr runs the postmaster as cred. Only Linux can have the
// kernel stop it when the test binary dies; elsewhere Stop does.
func postmasterAttr(cred *credentials) *syscall.SysProcAttr { return runAs(cred) }
