//go:build linux && amd64

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// int80Socket asks for a UDP socket through the i386 system call
// interface (int $0x80), which a filter judging x86_64 numbers alone
// would let through.
const int80Socket = `#include <stdio.h>
int main(void) {
	long ret;
	__asm__ volatile ("int $0x80" : "=a"(ret) : "a"(359L), "b"(2L), "c"(2L), "d"(0L) : "memory");
	printf("%s %ld\n", ret >= 0 ? "ok" : "refused", ret);
	return ret >= 0 ? 0 : 1;
}
`

func TestNetworkFalseRefusesThe32BitSystemCallInterface(t *testing.T) {
	requireLandlock(t, MinNetworkABI)
	t.Parallel()
	cc, err := exec.LookPath("cc")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("a C compiler is needed to make an int $0x80 call, and CI=true")
		}
		t.Skip("a C compiler is needed to make an int $0x80 call")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "int80.c"), filepath.Join(dir, "int80")
	if err := os.WriteFile(src, []byte(int80Socket), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cannot compile: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin).CombinedOutput(); err != nil {
		t.Skipf("this kernel has no i386 system call interface: %s", out)
	}
	out, err := confined(t, Policy{Network: false, Writable: Devices}, bin)
	if err == nil || !strings.Contains(out, "refused -1") { // -EPERM
		t.Errorf("an i386 socket call succeeded with the network off: %v\n%s", err, out)
	}
}
