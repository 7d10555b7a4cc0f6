//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsCannotMakeDeviceFiles: a command run with CAP_MKNOD (toolhost
// run as root, in a container say) could make a node for the disk in a
// writable folder and read every file of it there, credentials and all,
// past every read rule Landlock keeps on paths. Device files are made
// nowhere.
func TestCommandsCannotMakeDeviceFiles(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root can make device files at all")
	}
	dir := t.TempDir()
	for _, node := range []string{"c 1 3", "b 7 0"} {
		p := filepath.Join(dir, strings.ReplaceAll(node, " ", "-"))
		out, err := confined(t, Policy{Network: true, Writable: append([]string{dir}, Devices...)}, "mknod "+p+" "+node+" && echo MADE")
		if err == nil || strings.Contains(out, "MADE") {
			t.Errorf("mknod %s in a writable folder succeeded:\n%s", node, out)
		}
	}
	// FIFOs and sockets are still made: pipelines and servers need them.
	out, err := confined(t, Policy{Network: true, Writable: append([]string{dir}, Devices...)}, "mkfifo "+filepath.Join(dir, "fifo")+" && echo MADE")
	if err != nil || !strings.Contains(out, "MADE") {
		t.Errorf("mkfifo in a writable folder failed: %v\n%s", err, out)
	}
}

// TestRawDevicesAreUnreadable: a disk's device file (readable by root, or
// the disk group) holds every file's bytes; it is hidden like a
// credential, and so is /dev/mem.
func TestRawDevicesAreUnreadable(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	devs := RawDevices(nil)
	var disk string
	for _, d := range devs {
		if fi, err := os.Stat(d.Path); err == nil && fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0 {
			disk = d.Path
			break
		}
	}
	if disk == "" {
		t.Skip("no block device in /dev")
	}
	if f, err := os.Open(disk); err != nil {
		t.Skipf("this user cannot read %s anyway: %v", disk, err)
	} else {
		f.Close()
	}
	for _, p := range []Policy{
		{Network: true, Writable: Devices, Hidden: devs},
		{Network: true, Writable: Devices, Hidden: devs, ConfineReads: true, Readable: SystemDirs},
	} {
		out, err := confined(t, p, "head -c 16 "+disk+" >/dev/null && echo READ")
		if err == nil || strings.Contains(out, "READ") {
			t.Errorf("confine=%v: reading %s succeeded:\n%s", p.ConfineReads, disk, out)
		}
	}
	// The devices commands need stay usable.
	out, err := confined(t, Policy{Network: true, Writable: Devices, Hidden: devs}, "head -c 4 /dev/urandom >/dev/null && echo ok >/dev/null && echo DONE")
	if err != nil || !strings.Contains(out, "DONE") {
		t.Errorf("the ordinary devices stopped working: %v\n%s", err, out)
	}
}
