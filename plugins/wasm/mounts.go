package wasm

import (
	"maps"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental/sysfs"

	"github.com/toolhost/toolhost/internal/rootfs"
)

// mounts are the allowed_paths of one compiled module: each host directory
// as a rootfs.FS, which resolves every guest path inside an os.Root (see
// package rootfs for why), and the wazero FSConfig that mounts them. They
// replace Extism's own mounting (Manifest.AllowedPaths), which uses
// wazero's DirFS and follows links out of the directory. Instances of the
// module share them; they close with the module.
type mounts struct {
	fs  []*rootfs.FS
	cfg wazero.FSConfig // nil when nothing is granted
}

// newMounts mounts limits.AllowedPaths: host (absolute, "ro:" prefix for
// read-only) → guest path.
func newMounts(allowed map[string]string) mounts {
	if len(allowed) == 0 {
		return mounts{}
	}
	var m mounts
	// A writable mount must not change what a read-only one holds: through
	// a link "alias -> locked" or a hard link when "ro:/proj/locked" sits
	// inside "/proj" (rootfs.FS.WithReadOnly).
	var readOnly []string
	for host := range allowed {
		if dir, ok := strings.CutPrefix(host, "ro:"); ok {
			readOnly = append(readOnly, dir)
		}
	}
	slices.Sort(readOnly)
	cfg := wazero.NewFSConfig()
	for _, host := range slices.Sorted(maps.Keys(allowed)) {
		var fsys *rootfs.FS
		if dir, ok := strings.CutPrefix(host, "ro:"); ok {
			fsys = rootfs.NewReadOnly(dir)
		} else {
			fsys = rootfs.New(host).WithReadOnly(readOnly...)
		}
		m.fs = append(m.fs, fsys)
		cfg = cfg.(sysfs.FSConfig).WithSysFSMount(fsys, allowed[host])
	}
	m.cfg = cfg
	return m
}

// refresh makes each mount follow its path again if the directory was
// replaced since the last call (rootfs.FS.Refresh).
func (m mounts) refresh() {
	for _, fsys := range m.fs {
		fsys.Refresh()
	}
}

// close releases the mounted directories.
func (m mounts) close() {
	for _, fsys := range m.fs {
		fsys.Close()
	}
}
