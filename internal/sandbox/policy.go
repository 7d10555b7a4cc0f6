package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/fspath"
)

// Policy is what one confined command may do. The zero value may write
// nowhere and may use the network.
type Policy struct {
	// Writable are the roots a command may write beneath: directories, or
	// single files such as /dev/null. Absolute; symbolic links are
	// followed; roots that do not exist are skipped.
	Writable []string `json:"writable,omitempty"`
	// Protected are directories never writable, even beneath a writable
	// root (see Plan). Absolute; they need not exist yet.
	Protected []string `json:"protected,omitempty"`
	// Network false refuses TCP connect and bind.
	Network bool `json:"network"`
}

// Devices are the device files and device directories every command may
// write, so redirections such as >/dev/null and 2>/dev/tty keep working.
// /dev/stdout and /dev/fd/N need no grant: they reopen the command's own
// pipes, which Landlock does not restrict. /dev/shm is POSIX shared memory,
// a temporary directory by another name.
var Devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/ptmx", "/dev/pts", "/dev/shm"}

// Grant is one path a command may write beneath.
type Grant struct {
	Path string `json:"path"`
	// Dir says Path is a directory (rights over its whole hierarchy);
	// otherwise it is one file (write and truncate only).
	Dir bool `json:"dir"`
}

// Skip is a writable root, or an entry of a carved directory, that Plan
// did not grant, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Plan is what a Policy grants on this machine right now.
type Plan struct {
	Grants []Grant `json:"grants"`
	// Carved are directories only some of whose entries are granted,
	// because a protected directory lies beneath them: new entries cannot
	// be created directly in them.
	Carved []string `json:"carved,omitempty"`
	// Skipped are roots not granted: missing, relative, or protected.
	Skipped []Skip `json:"skipped,omitempty"`
}

// Plan resolves the policy's roots and protected directories and computes
// the grants, carving around protected directories (see the package doc).
// It reads the file system and never fails: what it cannot grant it skips.
func (p Policy) Plan() Plan {
	var protected []string
	for _, d := range p.Protected {
		if filepath.IsAbs(d) {
			protected = append(protected, realPath(d))
		}
	}
	var pl Plan
	seen := map[string]bool{}
	for _, root := range p.Writable {
		if !filepath.IsAbs(root) {
			pl.Skipped = append(pl.Skipped, Skip{root, "not an absolute path"})
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Clean(root))
		if err != nil {
			reason := "cannot be resolved: " + err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				reason = "does not exist"
			}
			pl.Skipped = append(pl.Skipped, Skip{root, reason})
			continue
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		pl.grant(real, protected)
	}
	return pl
}

// grant grants path, or carves it when a protected directory lies beneath.
func (pl *Plan) grant(path string, protected []string) {
	fi, err := os.Stat(path)
	if err != nil {
		pl.Skipped = append(pl.Skipped, Skip{path, "cannot be read: " + err.Error()})
		return
	}
	var below bool
	for _, pr := range protected {
		if within(pr, path) {
			pl.Skipped = append(pl.Skipped, Skip{path, "toolhost's own state (" + pr + ") is never writable"})
			return
		}
		if within(path, pr) {
			below = true
		}
	}
	if !below || !fi.IsDir() {
		pl.Grants = append(pl.Grants, Grant{Path: path, Dir: fi.IsDir()})
		return
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		pl.Skipped = append(pl.Skipped, Skip{path, "cannot be listed to carve out toolhost's state: " + err.Error()})
		return
	}
	pl.Carved = append(pl.Carved, path)
	for _, e := range entries {
		child := filepath.Join(path, e.Name())
		// An entry may be a link into a protected directory; the grant
		// would follow it, so judge where it leads.
		real, err := filepath.EvalSymlinks(child)
		if err != nil {
			continue // dangling: nothing to grant
		}
		if real != child {
			if slices.ContainsFunc(protected, func(pr string) bool { return within(pr, real) || within(real, pr) }) {
				pl.Skipped = append(pl.Skipped, Skip{child, "links to or above toolhost's own state"})
				continue
			}
		}
		pl.grant(real, protected)
	}
}

// Allows reports whether the plan lets a command write path (a file or a
// directory; it need not exist).
func (pl Plan) Allows(path string) bool {
	path = realPath(path)
	for _, g := range pl.Grants {
		if g.Dir && within(g.Path, path) || !g.Dir && g.Path == path {
			return true
		}
	}
	return false
}

// within reports whether target is root or lies beneath it.
func within(root, target string) bool { return fspath.Within(root, target) }

// realPath resolves symbolic links in p, or in its longest existing prefix
// when p does not exist yet.
func realPath(p string) string { return fspath.Real(p) }

// encode and decodePolicy carry a Policy to the helper in argv.
func (p Policy) encode() (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode sandbox policy: %w", err)
	}
	return string(b), nil
}

func decodePolicy(s string) (Policy, error) {
	var p Policy
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Policy{}, fmt.Errorf("decode sandbox policy: %w", err)
	}
	if dec.More() {
		return Policy{}, errors.New("decode sandbox policy: trailing data")
	}
	return p, nil
}
