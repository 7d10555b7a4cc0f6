package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/fspath"
)

// Policy is what one confined command may do. The zero value may write
// nowhere, may read everything and may use the network.
type Policy struct {
	// Writable are the roots a command may write beneath: directories, or
	// single files such as /dev/null. Absolute; symbolic links are
	// followed; roots that do not exist are skipped.
	Writable []string `json:"writable,omitempty"`
	// Protected are directories never writable, even beneath a writable
	// root (see Plan). Absolute; they need not exist yet.
	Protected []string `json:"protected,omitempty"`
	// ConfineReads limits reading to Readable and Writable. False leaves
	// reading open everywhere but Hidden.
	ConfineReads bool `json:"confine_reads,omitempty"`
	// Readable are the roots a command may read beneath when ConfineReads
	// is set, besides the writable roots. Absolute; missing ones skipped.
	Readable []string `json:"readable,omitempty"`
	// Hidden are locations never readable nor writable, even beneath a
	// readable or writable root: credentials (see Credentials).
	Hidden []Secret `json:"hidden,omitempty"`
	// Network false refuses TCP connect and bind, other socket families
	// and protocols, and abstract UNIX sockets outside the command.
	Network bool `json:"network"`
	// PlanDir is where CachedPlan may keep plans for later processes
	// (plankeep.go): a directory in one of Protected, or plans are not
	// kept. Not part of what the policy grants.
	PlanDir string `json:"-"`
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
	// Grants, Carved and Skipped are about writing.
	Grants []Grant `json:"grants"`
	// Carved are directories only some of whose entries are granted,
	// because a protected directory lies beneath them: new entries cannot
	// be created directly in them.
	Carved []string `json:"carved,omitempty"`
	// Skipped are roots not granted: missing, relative, or protected.
	Skipped []Skip `json:"skipped,omitempty"`
	// Protected are the resolved directories never writable: toolhost's
	// state and the hidden locations.
	Protected []string `json:"protected,omitempty"`
	// Read is what a command may read.
	Read ReadPlan `json:"read"`
	// linked are the paths granted (for writing or reading) because a
	// link led there, in a carved directory or on the way to a root: a
	// grant is opened by its path when a command is confined, and what
	// those paths name is not otherwise stamped (dependsOn stamps a root
	// by its name), though one may lie where commands write.
	linked []string
}

// ReadPlan is what a Policy lets a command read.
type ReadPlan struct {
	// Confined says only Grants are readable; otherwise everything is,
	// except Hidden (Grants then carve "/" around Hidden).
	Confined bool `json:"confined"`
	// Grants are the readable files and directories.
	Grants []Grant `json:"grants"`
	// Carved are directories whose names can be listed (the listing
	// right is hierarchical in Landlock, so the names beneath them too)
	// but only some of whose entries are readable: a hidden location
	// lies beneath.
	Carved []string `json:"carved,omitempty"`
	// Hidden are the resolved locations never readable, each with the
	// name to grant it by.
	Hidden []HiddenPath `json:"hidden,omitempty"`
	// Skipped are roots not granted.
	Skipped []Skip `json:"skipped,omitempty"`
}

// HiddenPath is one resolved hidden location.
type HiddenPath struct {
	Path string `json:"path"`
	// Grant is the name to list in "sandbox": {"readable": [...]} to
	// grant it ("~/.ssh/id_ed25519").
	Grant string `json:"grant"`
}

// Plan resolves the policy's roots, protected and hidden locations and
// computes the grants, carving around protected and hidden ones (see the
// package doc). It reads the file system and never fails: what it cannot
// grant it skips.
func (p Policy) Plan() Plan {
	var pl Plan
	hidden := expandHidden(p.Hidden)
	var hiddenPaths []string
	for _, h := range hidden {
		hiddenPaths = append(hiddenPaths, h.Path)
	}
	var state, stateNames []string
	for _, d := range p.Protected {
		if filepath.IsAbs(d) {
			real := realPath(d)
			state = append(state, real)
			stateNames = append(stateNames, filepath.Clean(d))
			if real != filepath.Clean(d) {
				// Every link the name leads through, wherever it lies.
				stateNames = append(stateNames, linksOnTheWay(d)...)
			}
		}
	}
	named := slices.Clone(stateNames)
	isHidden := make(map[string]bool, len(hiddenPaths))
	for _, h := range hiddenPaths {
		isHidden[h] = true
	}
	for _, s := range p.Hidden {
		if !filepath.IsAbs(s.Path) {
			continue
		}
		// Named through links (it is not hidden by its own name): the
		// name and every link on the way, wherever it lies. (A directory
		// with exceptions hides its entries, not itself: ~/.ssh's
		// known_hosts stays writable where the home directory is.)
		name := filepath.Clean(s.Path)
		if len(s.Except) == 0 && !isHidden[name] || len(s.Except) > 0 && realPath(name) != name {
			named = append(named, name)
			named = append(named, linksOnTheWay(name)...)
		}
	}
	pl.Protected = append(slices.Clone(state), hiddenPaths...)
	// A location named through a link is protected where the link leads,
	// and by its name too: the link, where commands write, is carved
	// around, so no command can replace it and make the name lead to a
	// directory of its own (where the next process would read the plans it
	// keeps in its cache directory, or the credentials it looks for).
	protected := slices.Clone(pl.Protected)
	for _, n := range named {
		if !slices.Contains(protected, n) {
			protected = append(protected, n)
		}
	}
	reason := func(pr string) string {
		if slices.Contains(state, pr) || slices.Contains(stateNames, pr) {
			return "toolhost's own state (" + pr + ") is never writable"
		}
		return "a credential location (" + pr + ") is never writable unless named in sandbox.readable"
	}
	var c carver
	c.carveRoots(p.Writable, protected, reason)
	pl.Grants, pl.Carved, pl.Skipped = c.grants, c.carved, c.skipped

	roots := []string{string(filepath.Separator)}
	if p.ConfineReads {
		roots = append(slices.Clone(p.Readable), p.Writable...)
	}
	var r carver
	r.carveRoots(roots, hiddenPaths, func(pr string) string {
		return "a credential location (" + pr + ") is readable only when named in sandbox.readable"
	})
	pl.Read = ReadPlan{Confined: p.ConfineReads, Grants: r.grants, Carved: r.carved, Hidden: hidden, Skipped: r.skipped}
	pl.linked = append(c.linked, r.linked...)
	return pl
}

// carver accumulates the grants for a set of roots carved around
// protected paths.
type carver struct {
	grants  []Grant
	carved  []string
	skipped []Skip
	seen    map[string]bool
	// protected are all the protected paths of this carve: what a link
	// met while carving is judged against, wherever it leads.
	protected []string
	// linked are where the links met lead (Plan.linked).
	linked []string
}

func (c *carver) carveRoots(roots, protected []string, reason func(string) string) {
	c.seen = map[string]bool{}
	// Clean, as every path the carve compares them with is (resolved
	// roots, their entries, where links lead): withinClean then holds.
	c.protected = make([]string, 0, len(protected))
	for _, pr := range protected {
		if filepath.IsAbs(pr) {
			c.protected = append(c.protected, filepath.Clean(pr))
		}
	}
	protected = c.protected
	for _, root := range roots {
		if !filepath.IsAbs(root) {
			c.skipped = append(c.skipped, Skip{root, "not an absolute path"})
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Clean(root))
		if err != nil {
			reason := "cannot be resolved: " + err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				reason = "does not exist"
			}
			c.skipped = append(c.skipped, Skip{root, reason})
			continue
		}
		if real != filepath.Clean(root) {
			// Granted by where the links led: stamped as a link's target.
			c.linked = append(c.linked, real)
		}
		// A root beneath one already granted whole adds nothing.
		if c.seen[real] || slices.ContainsFunc(c.grants, func(g Grant) bool { return g.Dir && within(g.Path, real) }) {
			continue
		}
		c.seen[real] = true
		c.grant(real, protected, reason)
	}
}

// grant grants path, or carves it when a protected path lies beneath.
func (c *carver) grant(path string, protected []string, reason func(string) string) {
	fi, err := os.Stat(path)
	if err != nil {
		c.skipped = append(c.skipped, Skip{path, "cannot be read: " + err.Error()})
		return
	}
	c.grantKnown(path, fi.IsDir(), protected, reason)
}

// grantKnown is grant for a path already known to exist, and whether it is
// a directory: a carve lists thousands of entries (every entry of /tmp
// when a protected location lies below it), so an entry that is not a link
// is judged from its directory listing, without a system call of its own.
//
// protected may be any superset of the protected paths that lie beneath
// path or contain it; an entry of a carved directory is judged against
// those beneath the directory only (the others were judged with the
// directory: none contains it), so that carving / around a hundred
// credential locations compares each entry with the few below it, not
// with all of them.
func (c *carver) grantKnown(path string, isDir bool, protected []string, reason func(string) string) {
	var beneath []string
	for _, pr := range protected {
		if withinClean(pr, path) {
			c.skipped = append(c.skipped, Skip{path, reason(pr)})
			return
		}
		if withinClean(path, pr) {
			beneath = append(beneath, pr)
		}
	}
	if len(beneath) == 0 || !isDir {
		c.grants = append(c.grants, Grant{Path: path, Dir: isDir})
		return
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		c.skipped = append(c.skipped, Skip{path, "cannot be listed to carve out what lies beneath: " + err.Error()})
		return
	}
	if slices.Contains(c.carved, path) {
		return
	}
	c.carved = append(c.carved, path)
	// Each entry is judged against the protected paths at or beneath it
	// alone: those whose first name below path is the entry's.
	at := map[string][]string{}
	for _, pr := range beneath {
		name, _, _ := strings.Cut(strings.TrimPrefix(pr[len(path):], "/"), "/")
		at[name] = append(at[name], pr)
	}
	for _, e := range entries {
		child := filepath.Join(path, e.Name())
		if e.Type()&fs.ModeSymlink == 0 {
			// path is real (every carved path is), so child is too.
			c.grantKnown(child, e.IsDir(), at[e.Name()], reason)
			continue
		}
		// A link may lead into a protected directory; the grant would
		// follow it, so judge where it leads.
		real, err := filepath.EvalSymlinks(child)
		if err != nil {
			continue // dangling: nothing to grant
		}
		if real == "/proc" || strings.HasPrefix(real, "/proc/") {
			// /dev/fd, /dev/stdin: /proc/self/... resolves to this
			// process's own entries, not the command's (whose standard
			// files and pipes Landlock does not govern anyway), and would
			// make a plan depend on this process's id.
			c.skipped = append(c.skipped, Skip{child, "links into /proc, which differs for each process"})
			continue
		}
		if slices.ContainsFunc(c.protected, func(pr string) bool { return withinClean(pr, real) || withinClean(real, pr) }) {
			c.skipped = append(c.skipped, Skip{child, "links to or above a protected location"})
			continue
		}
		c.linked = append(c.linked, real)
		c.grant(real, c.protected, reason)
	}
}

// Allows reports whether the plan lets a command write path (a file or a
// directory; it need not exist).
func (pl Plan) Allows(path string) bool { return granted(pl.Grants, realPath(path)) }

// AllowsRead reports whether the plan lets a command read path.
func (pl Plan) AllowsRead(path string) bool { return granted(pl.Read.Grants, realPath(path)) }

// HiddenAt returns the hidden location path lies in, if any.
func (pl Plan) HiddenAt(path string) (HiddenPath, bool) {
	real := realPath(path)
	for _, h := range pl.Read.Hidden {
		if within(h.Path, real) {
			return h, true
		}
	}
	return HiddenPath{}, false
}

func granted(grants []Grant, path string) bool {
	for _, g := range grants {
		if g.Dir && within(g.Path, path) || !g.Dir && g.Path == path {
			return true
		}
	}
	return false
}

// withinClean is within for clean absolute paths, what a carve compares:
// a comparison of prefixes, made tens of thousands of times when / is
// carved around a hundred credential locations.
func withinClean(root, target string) bool {
	return root == target || root == "/" ||
		len(target) > len(root) && target[len(root)] == '/' && target[:len(root)] == root
}

// within reports whether target is root or lies beneath it.
func within(root, target string) bool { return fspath.Within(root, target) }

// realPath resolves symbolic links in p, or in its longest existing prefix
// when p does not exist yet.
func realPath(p string) string { return fspath.Real(p) }

// helperArgs is what the helper enforces, carried in argv: the plan the
// parent computed (see CachedPlan), so the helper does not read the
// directories again on every call.
type helperArgs struct {
	Write []Grant
	Read  []Grant
	// List are directories only listable (the read plan's carved ones).
	List    []string
	Network bool
}

func helperArgsFor(p Policy, pl Plan) helperArgs {
	return helperArgs{Write: pl.Grants, Read: pl.Read.Grants, List: pl.Read.Carved, Network: p.Network}
}

// The helper arguments' encoding: a header line, then one record a line —
// "net 0" or "net 1" once, "W" or "R" with "d" (a directory) or "f" (a
// file) and a quoted path, "L" and a quoted path. A helper starting in a
// millisecond reads a few hundred of them; JSON took it longer than the
// rest of its work before the command.
const argsHeader = "toolhost-sandbox-plan 1"

func (a helperArgs) encode() (string, error) {
	var b strings.Builder
	b.Grow(64 * (len(a.Write) + len(a.Read) + len(a.List) + 2))
	b.WriteString(argsHeader)
	if a.Network {
		b.WriteString("\nnet 1")
	} else {
		b.WriteString("\nnet 0")
	}
	grants := func(kind string, gs []Grant) {
		for _, g := range gs {
			b.WriteString("\n" + kind)
			if g.Dir {
				b.WriteString(" d ")
			} else {
				b.WriteString(" f ")
			}
			b.WriteString(strconv.Quote(g.Path))
		}
	}
	grants("W", a.Write)
	grants("R", a.Read)
	for _, p := range a.List {
		b.WriteString("\nL ")
		b.WriteString(strconv.Quote(p))
	}
	return b.String(), nil
}

func decodeHelperArgs(s string) (helperArgs, error) {
	var a helperArgs
	lines := strings.Split(s, "\n")
	if lines[0] != argsHeader {
		return helperArgs{}, errors.New("decode sandbox policy: not a plan of this version")
	}
	sawNet := false
	for _, line := range lines[1:] {
		if err := a.decodeLine(line, &sawNet); err != nil {
			return helperArgs{}, fmt.Errorf("decode sandbox policy: %w", err)
		}
	}
	if !sawNet {
		return helperArgs{}, errors.New("decode sandbox policy: no network setting")
	}
	return a, nil
}

// decodeLine adds one record of the encoding to a.
func (a *helperArgs) decodeLine(line string, sawNet *bool) error {
	kind, rest, _ := strings.Cut(line, " ")
	switch kind {
	case "net":
		if *sawNet || rest != "0" && rest != "1" {
			return fmt.Errorf("bad network record %q", line)
		}
		*sawNet, a.Network = true, rest == "1"
	case "W", "R":
		form, quoted, _ := strings.Cut(rest, " ")
		path, err := strconv.Unquote(quoted)
		if err != nil || form != "d" && form != "f" || !filepath.IsAbs(path) {
			return fmt.Errorf("bad grant %q", line)
		}
		g := Grant{Path: path, Dir: form == "d"}
		if kind == "W" {
			a.Write = append(a.Write, g)
		} else {
			a.Read = append(a.Read, g)
		}
	case "L":
		path, err := strconv.Unquote(rest)
		if err != nil || !filepath.IsAbs(path) {
			return fmt.Errorf("bad listing grant %q", line)
		}
		a.List = append(a.List, path)
	default:
		return fmt.Errorf("unknown record %q", line)
	}
	return nil
}
