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
