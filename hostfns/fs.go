package hostfns

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental/sysfs"

	"github.com/toolhost/toolhost/internal/confine/rootfs"
)

// File access is granted by allowed_paths: host folder ("ro:" prefix for
// read-only) → the path the guest sees it at. Every guest kind reads the
// grant here, once (PathGrants), and every guest kind keeps the same rule:
// a writable grant does not make writable what another grant of the same
// tool holds read-only — "/proj" writable with "ro:/proj/locked" leaves
// /proj/locked/x read-only, through either name and through links. wasm
// modules and Python tools reach their folders through WASI, mounted by
// Mount; JS tools through the fs ops of package js's Bridge, which judges
// each path against PathGrants itself (a script engine has no WASI).

// PathGrant is one entry of a tool's allowed_paths.
type PathGrant struct {
	// Host is the host folder, cleaned; absolute once the host resolved
	// the config's relative paths against the project (config.WasmConfig
	// .HostPaths).
	Host string
	// Guest is where the guest sees it, cleaned when given.
	Guest string
	// ReadOnly: the entry had the "ro:" prefix.
	ReadOnly bool
}

// PathGrants reads allowed_paths (host, "ro:" for read-only → guest),
// sorted by host folder, the read-only entry first of two for one folder,
// so no decision depends on map order. Entries without a host folder are
// left out.
func PathGrants(paths map[string]string) []PathGrant {
	gs := make([]PathGrant, 0, len(paths))
	for _, h := range slices.Sorted(maps.Keys(paths)) {
		host, ro := strings.CutPrefix(h, "ro:")
		if host == "" {
			continue
		}
		guest := paths[h]
		if guest != "" {
			guest = filepath.Clean(guest)
		}
		gs = append(gs, PathGrant{Host: filepath.Clean(host), Guest: guest, ReadOnly: ro})
	}
	slices.SortStableFunc(gs, func(a, b PathGrant) int {
		if c := strings.Compare(a.Host, b.Host); c != 0 {
			return c
		}
		switch {
		case a.ReadOnly && !b.ReadOnly:
			return -1
		case b.ReadOnly && !a.ReadOnly:
			return 1
		}
		return 0
	})
	return gs
}

// Mounts are a tool's allowed_paths as a WASI guest — a wasm module or a
// Python tool — sees them: each folder a rootfs.FS, which resolves every
// guest path inside an os.Root, so no link leads out of it (package
// rootfs says why wazero's DirFS is not enough). The zero Mounts has none.
type Mounts struct {
	fs []*rootfs.FS
}

// Mount adds paths (allowed_paths) to cfg, a new FSConfig when nil, and
// returns it with the mounts, which the caller refreshes as each call
// starts and closes when the guest is gone. A writable mount refuses any
// change that reaches a folder another grant holds read-only
// (rootfs.FS.WithReadOnly), as the package's file rule says.
func Mount(cfg wazero.FSConfig, paths map[string]string) (wazero.FSConfig, Mounts) {
	gs := PathGrants(paths)
	var m Mounts
	if len(gs) == 0 {
		return cfg, m
	}
	if cfg == nil {
		cfg = wazero.NewFSConfig()
	}
	var readOnly []string
	for _, g := range gs {
		if g.ReadOnly {
			readOnly = append(readOnly, g.Host)
		}
	}
	for _, g := range gs {
		fsys := rootfs.NewReadOnly(g.Host)
		if !g.ReadOnly {
			fsys = rootfs.New(g.Host).WithReadOnly(readOnly...)
		}
		m.fs = append(m.fs, fsys)
		cfg = cfg.(sysfs.FSConfig).WithSysFSMount(fsys, g.Guest)
	}
	return cfg, m
}

// Refresh makes each mount follow its folder's path again if the folder
// was replaced since the last call (rootfs.FS.Refresh).
func (m Mounts) Refresh() {
	for _, fsys := range m.fs {
		fsys.Refresh()
	}
}

// Close releases the mounted folders.
func (m Mounts) Close() {
	for _, fsys := range m.fs {
		fsys.Close()
	}
}
