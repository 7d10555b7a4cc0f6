//go:build unix

package pgtest

import (
	"errors"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// credentials are the user a server's processes run as.
type credentials = syscall.Credential

// credential returns who the server runs as: nil (this process's user)
// unless that is root, which PostgreSQL refuses.
func credential() (*credentials, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
	}
	return nil, errors.New("running as root and neither a postgres nor a nobody user exists to run PostgreSQL as")
}

// runAs runs a program as cred (nil: this process's user).
func runAs(cred *credentials) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred}
}
