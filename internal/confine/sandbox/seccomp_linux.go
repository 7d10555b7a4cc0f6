//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The socket filter (network false). Landlock judges only TCP connect and
// bind (and, from ABI 10, UDP); a socket of any other family or protocol
// would be a way around it: MPTCP (IPPROTO_MPTCP on a stream socket, which
// Landlock's TCP rights do not cover), UDP, raw and packet sockets, SCTP,
// VSOCK to the hypervisor, Bluetooth, and the rest. Even plain TCP has a
// way around bind: listen(2) on a socket never bound makes the kernel
// bind it to a port of its choosing on every address, with no bind(2) for
// Landlock to judge, and the command then accepts connections from the
// network. With the network off a TCP socket can neither connect nor
// bind, so the filter refuses IPv4 and IPv6 sockets whole and lets
// socket(2) and socketpair(2) create only
//
//   - AF_UNIX sockets of any type: pipes between programs, local daemons
//     by path (an ssh agent, a build server). Abstract ones outside the
//     command are refused by Landlock's scope instead.
//   - AF_NETLINK with NETLINK_ROUTE, which lists interfaces and
//     addresses (getaddrinfo, `ip addr`, Node's os.networkInterfaces) and
//     carries nothing off the machine.
//
// Everything else fails with EPERM, so a program prints a clear error.
// Landlock's TCP rules stay handled beneath the filter. sendto, sendmsg
// and sendmmsg with MSG_FASTOPEN are refused too (TCP Fast Open connects
// without connect(2), and Landlock does not see it), should a TCP socket
// ever be let through. io_uring_setup is refused: io_uring creates and
// connects sockets without the socket(2) system call that the filter
// judges. System calls of another ABI than the native one (i386's int
// 0x80 on x86_64, 32-bit ARM on arm64, x32) are refused with EPERM
// whatever they are, as the filter cannot judge them by the native
// numbers: 32-bit programs do not run with the network off.
const (
	afUnix    = unix.AF_UNIX
	afNetlink = unix.AF_NETLINK
)

// filterArches are the architectures the socket filter supports: GOARCH to
// go-seccomp-bpf's name. Elsewhere network false is refused.
var filterArches = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}

// SocketFilterSupported reports whether network false can be enforced on
// this architecture, and why not.
func SocketFilterSupported() error {
	if _, ok := filterArches[runtime.GOARCH]; !ok {
		return fmt.Errorf("the socket filter that keeps the network off supports x86_64 and arm64, not %s", runtime.GOARCH)
	}
	return nil
}

// socketPolicy is the filter as go-seccomp-bpf's policy: each condition
// set matches a socket(2) or socketpair(2) call to refuse. A condition on
// the domain compares all 64 bits of the register while the kernel reads
// only 32: garbage in the upper half fails every Equal and passes every
// NotEqual, so such a call falls in the first set and is refused.
func socketPolicy() seccomp.Policy {
	sets := []seccomp.ArgumentConditions{
		// Any family but the two: IPv4 and IPv6 among them.
		{
			{Argument: 0, Operation: seccomp.NotEqual, Value: afUnix},
			{Argument: 0, Operation: seccomp.NotEqual, Value: afNetlink},
		},
		{
			{Argument: 0, Operation: seccomp.Equal, Value: afNetlink},
			{Argument: 2, Operation: seccomp.NotEqual, Value: unix.NETLINK_ROUTE},
		},
	}
	var named []seccomp.NameWithConditions
	for _, name := range []string{"socket", "socketpair"} {
		for _, set := range sets {
			named = append(named, seccomp.NameWithConditions{Name: name, Conditions: set})
		}
	}
	// TCP Fast Open: the flags are sendto's and sendmmsg's fourth
	// argument, sendmsg's third.
	for _, c := range []struct {
		name string
		arg  uint32
	}{{"sendto", 3}, {"sendmsg", 2}, {"sendmmsg", 3}} {
		named = append(named, seccomp.NameWithConditions{Name: c.name, Conditions: seccomp.ArgumentConditions{
			{Argument: c.arg, Operation: seccomp.BitsSet, Value: unix.MSG_FASTOPEN},
		}})
	}
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{{
			Action:             seccomp.ActionErrno, // EPERM
			Names:              []string{"io_uring_setup"},
			NamesWithCondtions: named,
		}},
	}
}

// socketFilter is the filter as seccomp takes it, assembled once per
// process (a one-shot helper assembles it before its command is known;
// a process that forks commands installs it in each child). Nothing
// writes to it.
var socketFilter = sync.OnceValues(assembleSocketFilter)

// assembleSocketFilter assembles the filter: the foreign-ABI refusal, then
// the library's program (which checks the native ABI itself and refuses
// x32).
func assembleSocketFilter() ([]unix.SockFilter, error) {
	if err := SocketFilterSupported(); err != nil {
		return nil, err
	}
	info, err := arch.GetInfo(filterArches[runtime.GOARCH])
	if err != nil {
		return nil, fmt.Errorf("socket filter: %w", err)
	}
	p := socketPolicy()
	insts, err := p.Assemble()
	if err != nil {
		return nil, fmt.Errorf("assemble the socket filter: %w", err)
	}
	prelude := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
	}
	raw, err := bpf.Assemble(append(prelude, insts...))
	if err != nil {
		return nil, fmt.Errorf("assemble the socket filter: %w", err)
	}
	prog := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		prog[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return prog, nil
}

// installSocketFilter loads the filter on every thread of this process
// (tsync), or on the calling thread alone (which then executes the shell:
// execve keeps its filter); the shell inherits it. no_new_privs is
// already set: Landlock needs it too; it is set again here (on the
// calling thread) so the order cannot matter.
func installSocketFilter(tsync bool) error {
	prog, err := socketFilter()
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := seccomp.SetNoNewPrivs(); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	var flags uintptr
	if tsync {
		flags = unix.SECCOMP_FILTER_FLAG_TSYNC
	}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("install the socket filter (seccomp): %w", errno)
	}
	if r != 0 {
		return fmt.Errorf("install the socket filter (seccomp): thread %d could not be synchronised", r)
	}
	return nil
}
