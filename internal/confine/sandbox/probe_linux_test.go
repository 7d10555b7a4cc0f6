//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probeEnv makes the test binary a probe instead of running tests: the
// confined shell runs the binary with it set to "op arg", and the probe
// does that one thing with raw system calls (no library falls back to
// another way), printing "ok" or the error.
const probeEnv = "TOOLHOST_SANDBOX_TEST_PROBE"

func init() {
	spec := os.Getenv(probeEnv)
	if spec == "" {
		return
	}
	op, arg, _ := strings.Cut(spec, " ")
	if err := probe(op, arg); err != nil {
		fmt.Println("refused:", err)
		os.Exit(1)
	}
	fmt.Println("ok")
	os.Exit(0)
}

func inet4(addr string) (*unix.SockaddrInet4, error) {
	a, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return nil, err
	}
	sa := &unix.SockaddrInet4{Port: a.Port}
	copy(sa.Addr[:], a.IP.To4())
	return sa, nil
}

// probes are the operations a confined command tries.
var probes = map[string]func(arg string) error{
	"tcp-connect":    func(a string) error { return streamConnect(unix.IPPROTO_TCP, a) },
	"mptcp-connect":  func(a string) error { return streamConnect(unix.IPPROTO_MPTCP, a) },
	"sctp-socket":    func(string) error { return socketOnly(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP) },
	"udp-send":       udpSend,
	"udp6-socket":    func(string) error { return socketOnly(unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0) },
	"raw-socket":     func(string) error { return socketOnly(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP) },
	"packet-socket":  func(string) error { return socketOnly(unix.AF_PACKET, unix.SOCK_RAW, 0) },
	"vsock-socket":   func(string) error { return socketOnly(unix.AF_VSOCK, unix.SOCK_STREAM, 0) },
	"netlink-route":  func(string) error { return socketOnly(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE) },
	"netlink-audit":  func(string) error { return socketOnly(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT) },
	"high-bits-inet": highBitsInet,
	"unix-socketpair": func(string) error {
		_, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		return err
	},
	"unix-connect":     func(a string) error { return unixConnect(a) },
	"abstract-connect": func(a string) error { return unixConnect("@" + a) },
	"io-uring":         ioUringSetup,
	"tcp-listen":       tcpListen,
	"tcp6-listen":      tcp6Listen,
	"fastopen-connect": fastOpenConnect,
	"proc-environ": func(a string) error {
		_, err := os.ReadFile("/proc/" + a + "/environ")
		return err
	},
	"pidfd-signal": func(a string) error {
		pid, err := strconv.Atoi(a)
		if err != nil {
			return err
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			return fmt.Errorf("pidfd_open: %w", err)
		}
		defer unix.Close(fd)
		return unix.PidfdSendSignal(fd, syscall.SIGUSR1, nil, 0)
	},
	"tcp-fastopen": tcpFastOpen,
	"signal": func(a string) error {
		pid, err := strconv.Atoi(a)
		if err != nil {
			return err
		}
		return unix.Kill(pid, syscall.SIGUSR1)
	},
}

func probe(op, arg string) error {
	f, ok := probes[op]
	if !ok {
		return fmt.Errorf("unknown probe %q", op)
	}
	return f(arg)
}

func socketOnly(domain, typ, proto int) error {
	fd, err := unix.Socket(domain, typ, proto)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	unix.Close(fd)
	return nil
}

func streamConnect(proto int, addr string) error {
	sa, err := inet4(addr)
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, proto)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, sa); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	return nil
}

func udpSend(addr string) error {
	sa, err := inet4(addr)
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Sendto(fd, []byte("leak"), 0, sa); err != nil {
		return fmt.Errorf("sendto: %w", err)
	}
	return nil
}

// highBitsInet asks for a UDP socket with garbage in the upper half of the
// domain register, which the kernel ignores (the argument is an int).
func highBitsInet(string) error {
	fd, _, errno := unix.RawSyscall(unix.SYS_SOCKET, uintptr(unix.AF_INET)|1<<40, unix.SOCK_DGRAM, 0)
	if errno != 0 {
		return fmt.Errorf("socket: %w", errno)
	}
	unix.Close(int(fd))
	return nil
}

func unixConnect(path string) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	return nil
}

// tcpFastOpen sends data with the connection request (MSG_FASTOPEN): a
// connect without connect(2).
func tcpFastOpen(addr string) error {
	sa, err := inet4(addr)
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Sendto(fd, []byte("leak"), unix.MSG_FASTOPEN, sa); err != nil {
		return fmt.Errorf("sendto: %w", err)
	}
	return nil
}

func ioUringSetup(string) error {
	var params [120]byte // struct io_uring_params
	fd, _, errno := unix.RawSyscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
	if errno != 0 {
		return fmt.Errorf("io_uring_setup: %w", errno)
	}
	unix.Close(int(fd))
	return nil
}

// probed runs one probe under p and reports whether it succeeded, with
// its output.
func probed(t *testing.T, p Policy, op, arg string) (bool, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd, started, err := Command(p, "sh", []string{"-c", `exec "$0"`, self}, append(os.Environ(), probeEnv+"="+op+" "+arg))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.CombinedOutput()
	if herr := started(); herr != nil {
		t.Fatalf("helper failed: %v", herr)
	}
	return cmd.ProcessState.Success(), string(out)
}

// tcpListen listens on a TCP socket never bound: the kernel binds it to an
// ephemeral port itself, without the bind(2) that Landlock judges.
func tcpListen(string) error { return listenUnbound(unix.AF_INET) }

func tcp6Listen(string) error { return listenUnbound(unix.AF_INET6) }

func listenUnbound(af int) error {
	fd, err := unix.Socket(af, unix.SOCK_STREAM, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Listen(fd, 1); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return fmt.Errorf("getsockname: %w", err)
	}
	fmt.Printf("listening: %#v\n", sa)
	return nil
}

// fastOpenConnect asks for TCP fast open by socket option, then connects.
func fastOpenConnect(addr string) error {
	sa, err := inet4(addr)
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT, 1); err != nil {
		return fmt.Errorf("setsockopt: %w", err)
	}
	if err := unix.Connect(fd, sa); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if _, err := unix.Write(fd, []byte("leak")); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
