package wasm

import (
	"github.com/tetratelabs/wazero"

	"github.com/toolhost/toolhost/hostfns"
)

// mounts are the allowed_paths of one compiled module, mounted by
// hostfns.Mount as every WASI guest's are (a Python tool's too): each host
// directory a rootfs.FS, which resolves every guest path inside an
// os.Root, and a writable one refusing changes that reach a folder granted
// read-only. They replace Extism's own mounting (Manifest.AllowedPaths),
// which uses wazero's DirFS and follows links out of the directory.
// Instances of the module share them; they close with the module.
type mounts struct {
	hostfns.Mounts
	cfg wazero.FSConfig // nil when nothing is granted
}

// newMounts mounts limits.AllowedPaths: host (absolute, "ro:" prefix for
// read-only) → guest path.
func newMounts(allowed map[string]string) mounts {
	cfg, m := hostfns.Mount(nil, allowed)
	return mounts{Mounts: m, cfg: cfg}
}

// refresh makes each mount follow its path again if the directory was
// replaced since the last call (rootfs.FS.Refresh).
func (m mounts) refresh() { m.Refresh() }

// close releases the mounted directories.
func (m mounts) close() { m.Close() }
