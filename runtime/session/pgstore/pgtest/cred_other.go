//go:build !unix

package pgtest

import "syscall"

// credentials are not used where there is no Unix user to switch to:
// PostgreSQL runs as this process's user.
type credentials struct{ Uid, Gid uint32 }

func credential() (*credentials, error) { return nil, nil }

func runAs(*credentials) *syscall.SysProcAttr { return nil }

func postmasterAttr(*credentials) *syscall.SysProcAttr { return nil }
