package js

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/internal/confine/fspath"
)

// This file is the fs bridge: which grant of allowed_paths a JS tool's
// path falls under, judged where the bytes really are, and the ops that
// act there. See the package doc ("Files") for why it is shaped so.

// grant is one entry of allowed_paths: the host folder as configured and
// with its links resolved, the guest path it appears at, and whether it is
// read-only.
type grant struct {
	host, real, guest string
	ro                bool
}

// grants lists b.Paths as every guest kind reads allowed_paths
// (hostfns.PathGrants: sorted, the read-only entry first of two for one
// folder), each host folder also resolved (links followed). A folder
// that is not absolute grants nothing: a JS tool's paths are judged on
// the host, where a relative folder would mean the host's working
// directory.
func (b *Bridge) grants() []grant {
	pgs := hostfns.PathGrants(b.Paths)
	gs := make([]grant, 0, len(pgs))
	for _, g := range pgs {
		if !filepath.IsAbs(g.Host) {
			continue
		}
		gs = append(gs, grant{host: g.Host, real: fspath.Real(g.Host), guest: g.Guest, ro: g.ReadOnly})
	}
	return gs
}

// mostSpecific returns the grant whose folder (per base) holds p most
// closely and p relative to it: with "/proj" writable and
// "ro:/proj/locked", /proj/locked/x is read-only, as nested mounts are. Of
// two grants equally specific the read-only one wins.
func mostSpecific(gs []grant, p string, bases func(grant) []string) (grant, string, bool) {
	var best grant
	bestLen, bestRel := -1, ""
	for _, g := range gs {
		for _, base := range bases(g) {
			r, ok := within(base, p)
			if !ok {
				continue
			}
			if n := len(base); n > bestLen || (n == bestLen && g.ro && !best.ro) {
				best, bestLen, bestRel = g, n, r
			}
		}
	}
	return best, bestRel, bestLen >= 0
}

// target is where one fs op acts: the grant that decides, judged on the
// real path, and the real path relative to the grant's real folder.
type target struct {
	asked string // the path as the tool gave it, made absolute and clean
	real  string // the host path with every link resolved
	g     grant
	rel   string // real below g.real ("." for the folder itself)
}

// locate finds where p (a guest path of allowed_paths, or a host path in a
// granted folder; relative paths are taken from the call's directory)
// really is, and the grant that decides there. Both the grant p names by
// its text and the most specific grant of the place its links lead to
// must allow the op: a link "alias -> locked" in a writable folder does
// not make the read-only "locked" writable, and a link out of every
// grant leads nowhere.
func (b *Bridge) locate(p string, write bool) (target, error) {
	if p == "" {
		return target{}, errors.New("empty path")
	}
	if !filepath.IsAbs(p) && b.Context != nil && b.Context.Directory != "" {
		p = filepath.Join(b.Context.Directory, p)
	}
	p = filepath.Clean(p)
	key := b.configKey()
	gs := b.grants()
	g, rel, ok := mostSpecific(gs, p, func(g grant) []string { return []string{g.guest, g.host} })
	if !ok {
		return target{}, fmt.Errorf("%s is outside the tool's allowed_paths; grant its folder in %s.allowed_paths in the config", p, key)
	}
	if write && g.ro {
		return target{}, fmt.Errorf("%s is read-only for this tool (\"ro:\" in %s.allowed_paths)", p, key)
	}
	real := fspath.Real(filepath.Join(g.host, rel))
	rg, rrel, ok := mostSpecific(gs, real, func(g grant) []string { return []string{g.real} })
	if !ok {
		// Not naming where: the link's target is none of the tool's business.
		return target{}, fmt.Errorf("%s leads through a link outside the tool's allowed_paths; grant the folder it leads to in %s.allowed_paths", p, key)
	}
	if write && rg.ro {
		return target{}, fmt.Errorf("%s leads through a link to %s, which is read-only for this tool (\"ro:%s\" in %s.allowed_paths); a link does not make a read-only file writable", p, real, rg.host, key)
	}
	if ig, ok := byIdentity(gs, real); write && ok && ig.ro {
		return target{}, fmt.Errorf("%s is the read-only folder %s by another name (\"ro:%s\" in %s.allowed_paths); another name does not make a read-only file writable", p, ig.host, ig.host, key)
	}
	return target{asked: p, real: real, g: rg, rel: rrel}, nil
}

// configKey is where the tool's grants are configured, named in a
// refusal as its HTTP refusals name it (hostfns.HTTPPolicy.ConfigKey):
// the entry that granted the tool, by id or by file name.
func (b *Bridge) configKey() string {
	if b.HTTP.ConfigKey != "" {
		return b.HTTP.ConfigKey
	}
	return "wasm." + b.Tool
}

// byIdentity returns the grant whose folder is, by device and inode, the
// nearest folder on the way up from real: a folder reached by a second
// name that is no link — a bind mount, or other case on a case-insensitive
// file system (/w/LOCKED on macOS) — is judged as the folder it is, which
// its name alone does not tell. Of two grants of one folder the read-only
// one wins. ok is false when no folder on the way is a grant's.
func byIdentity(gs []grant, real string) (grant, bool) {
	infos := make([]os.FileInfo, len(gs))
	for i, g := range gs {
		infos[i], _ = os.Stat(g.real)
	}
	for p := real; ; {
		if fi, err := os.Stat(p); err == nil {
			var best grant
			found := false
			for i, g := range gs {
				if infos[i] != nil && os.SameFile(fi, infos[i]) && (!found || g.ro && !best.ro) {
					best, found = g, true
				}
			}
			if found {
				return best, true
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return grant{}, false
		}
		p = parent
	}
}

func within(base, p string) (string, bool) {
	if base == "" || base == "." {
		return "", false
	}
	r, err := filepath.Rel(base, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return r, true
}

// file runs an fs op on a path inside allowed_paths. Reads open through an
// os.Root of the deciding grant's folder, so no link leads out of it;
// writes walk to the real path without following any link (writeNoFollow,
// mkdirNoFollow), so a link swapped in after locate cannot redirect them.
func (b *Bridge) file(op string, arg json.RawMessage) (any, error) {
	var in struct{ Path, Data string }
	if err := json.Unmarshal(arg, &in); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	t, err := b.locate(in.Path, op == "fs.write" || op == "fs.mkdir")
	if err != nil {
		return nil, err
	}
	return t.do(op, in.Data)
}

// do runs op at t.
func (t target) do(op, data string) (any, error) {
	switch op {
	case "fs.write":
		bytes, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, err
		}
		if err := writeNoFollow(t.g.real, t.rel, bytes); err != nil {
			return nil, fmt.Errorf("write %s: %w", t.asked, err)
		}
		return nil, nil
	case "fs.mkdir":
		if err := mkdirNoFollow(t.g.real, t.rel); err != nil {
			return nil, fmt.Errorf("mkdir %s: %w", t.asked, err)
		}
		return nil, nil
	}
	root, err := os.OpenRoot(t.g.real)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, t.asked, err)
	}
	defer root.Close()
	switch op {
	case "fs.read":
		f, err := openRegular(root, t.rel, os.O_RDONLY)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", t.asked, err)
		}
		defer f.Close()
		// Bounded by the read itself, not a Stat before it: the file may
		// grow in between.
		data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", t.asked, err)
		}
		if len(data) > maxFileBytes {
			return nil, fmt.Errorf("read %s: over %d bytes", t.asked, maxFileBytes)
		}
		return base64.StdEncoding.EncodeToString(data), nil
	case "fs.exists":
		_, err := root.Stat(t.rel)
		return err == nil, nil
	case "fs.readdir":
		f, err := root.OpenFile(t.rel, os.O_RDONLY|fspath.ONonblock, 0)
		if err != nil {
			return nil, fmt.Errorf("readdir %s: %w", t.asked, err)
		}
		defer f.Close()
		ents, err := f.ReadDir(-1)
		if err != nil {
			return nil, fmt.Errorf("readdir %s: %w", t.asked, err)
		}
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return names, nil
	}
	return nil, fmt.Errorf("unknown host call %q", op)
}

// errNotRegular refuses FIFOs, devices and sockets: reading or writing
// one can block the host call — where the script's time limit cannot stop
// it — or never end.
var errNotRegular = errors.New("not a regular file; a JS tool reads and writes only regular files")

// errLinked refuses an in-place write to a file with more than one name.
var errLinked = errors.New("the file has more than one name (hard links), and another name may be read-only or outside the tool's grants; a JS tool changes only files with one name (copy it to a new file and rename that over it to break the link)")

// errLinkInWay refuses a write whose path holds a link locate did not see.
var errLinkInWay = errors.New("a symbolic link is in the way (it appeared after the path was checked, or leads nowhere); a JS tool writes only through paths whose links it resolved")

// openRegular is fspath.OpenRegular with the JS tools' own refusal.
func openRegular(root *os.Root, rel string, flag int) (*os.File, error) {
	f, err := fspath.OpenRegular(root, rel, flag)
	if errors.Is(err, fspath.ErrNotRegular) {
		return nil, errNotRegular
	}
	return f, err
}

// components splits a clean relative path into its names ("." has none).
func components(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, string(filepath.Separator))
}
