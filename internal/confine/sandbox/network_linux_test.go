//go:build linux

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loopbackListener accepts plain TCP connections on 127.0.0.1 (MPTCP
// clients fall back to TCP against it) until the test ends.
func loopbackListener(t *testing.T) string {
	t.Helper()
	lc := net.ListenConfig{}
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(t.Context(), "tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// udpListener returns the address of a UDP socket on 127.0.0.1.
func udpListener(t *testing.T) string {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.LocalAddr().String()
}

// unixListener listens on a UNIX socket (a path, or an abstract name when
// it starts with "@") and accepts until the test ends.
func unixListener(t *testing.T, name string) {
	t.Helper()
	ln, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
}

func TestNetworkFalseClosesWhatLandlocksTCPRulesDoNotCover(t *testing.T) {
	requireLandlock(t, MinNetworkABI)
	t.Parallel()
	tcp, udp := loopbackListener(t), udpListener(t)
	sock := filepath.Join(t.TempDir(), "agent.sock")
	unixListener(t, sock)
	abstract := "toolhost-test-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	unixListener(t, "@"+abstract)
	tests := []struct {
		name, op, arg string
		// on and off: whether it works with the network on and off.
		on, off bool
	}{
		{"a TCP connection to a loopback listener", "tcp-connect", tcp, true, false},
		{"an MPTCP connection to a loopback listener", "mptcp-connect", tcp, true, false},
		{"a UDP datagram to a loopback socket", "udp-send", udp, true, false},
		{"a UDP socket over IPv6", "udp6-socket", "", true, false},
		{"a UDP socket asked for with garbage in the register's upper half", "high-bits-inet", "", true, false},
		{"an SCTP socket", "sctp-socket", "", true, false},
		{"a raw ICMP socket", "raw-socket", "", true, false},
		{"a packet socket", "packet-socket", "", true, false},
		{"a netlink audit socket", "netlink-audit", "", true, false},
		{"an io_uring, which creates sockets without socket(2)", "io-uring", "", true, false},
		{"a connection to another program's abstract UNIX socket", "abstract-connect", abstract, true, false},
		{"a TCP fast open, which connects without connect(2)", "tcp-fastopen", tcp, true, false},
		{"a TCP listener on a port the kernel picks (listen without bind)", "tcp-listen", "", true, false},
		{"a TCP listener over IPv6 on a port the kernel picks", "tcp6-listen", "", true, false},
		{"a TCP fast open asked for by socket option", "fastopen-connect", tcp, true, false},
		{"a connection to a UNIX socket by path (an ssh agent)", "unix-connect", sock, true, true},
		{"a UNIX socket pair", "unix-socketpair", "", true, true},
		{"a netlink route socket (interfaces and addresses)", "netlink-route", "", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, byFork := range startWays() {
				for _, network := range []bool{false, true} {
					want := tt.on
					if !network {
						want = tt.off
					}
					ok, out := probedBy(t, byFork, Policy{Network: network, Writable: Devices}, tt.op, tt.arg)
					if network && !ok && strings.Contains(out, "not supported") {
						t.Logf("this kernel lacks %s: %s", tt.op, out)
						continue
					}
					if ok != want {
						t.Errorf("%s, network=%v: %s succeeded=%v, want %v\n%s", wayName(byFork), network, tt.op, ok, want, out)
					}
					if !ok && !strings.Contains(out, "operation not permitted") && !strings.Contains(out, "permission denied") {
						t.Errorf("%s, network=%v: %s failed without a clear refusal (EPERM or EACCES):\n%s", wayName(byFork), network, tt.op, out)
					}
				}
			}
		})
	}
}

func TestCommandsSignalOnlyTheirOwnProcesses(t *testing.T) {
	requireLandlock(t, MinScopeABI)
	t.Parallel()
	outsider := exec.Command("sleep", "60")
	if err := outsider.Start(); err != nil {
		t.Skip("sleep is needed:", err)
	}
	t.Cleanup(func() { outsider.Process.Kill(); outsider.Wait() })
	// A process outside the command (toolhost, the user's editor) cannot
	// be signalled, with the network on or off.
	for _, byFork := range startWays() {
		for _, network := range []bool{true, false} {
			if ok, out := probedBy(t, byFork, Policy{Network: network, Writable: Devices}, "signal", strconv.Itoa(outsider.Process.Pid)); ok {
				t.Errorf("%s, network=%v: signalling a process outside the command succeeded\n%s", wayName(byFork), network, out)
			}
			// Nor the process that forked it (toolhost).
			if ok, out := probedBy(t, byFork, Policy{Network: network, Writable: Devices}, "signal", strconv.Itoa(os.Getpid())); ok {
				t.Errorf("%s, network=%v: signalling this process succeeded\n%s", wayName(byFork), network, out)
			}
		}
	}
	if err := outsider.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the outside process is gone: %v", err)
	}
	// The command's own children: job control, kill, timeout.
	script := `sleep 30 & pid=$!; kill $pid && wait $pid; test $? -gt 128 || exit 1
		timeout 0.2 sleep 30; test $? -eq 124 || exit 2
		sh -c 'kill -TERM $$; sleep 5'; test $? -gt 128 || exit 3
		echo done`
	for _, byFork := range startWays() {
		out, err := confinedBy(t, byFork, Policy{Network: true, Writable: Devices}, script)
		if err != nil || !strings.Contains(out, "done") {
			t.Errorf("%s: signalling the command's own processes failed: %v\n%s", wayName(byFork), err, out)
		}
	}
}
