package pgtest

import "syscall"

// postmasterAttr runs the postmaster as cred and has the kernel send it
// SIGQUIT, PostgreSQL's immediate shutdown, if the test binary dies first.
func postmasterAttr(cred *credentials) *syscall.SysProcAttr {
	attr := runAs(cred)
	attr.Pdeathsig = syscall.SIGQUIT
	return attr
}
