package trust

import (
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"slices"

	"github.com/toolhost/toolhost/runtime/config"
)

// Command is what a person runs to review and trust a project.
const Command = "toolhost trust"

// EnvTrusted lists directories (separated as in PATH) whose projects are
// trusted whatever their content, as mise's MISE_TRUSTED_CONFIG_PATHS:
// for CI, and for a person's own repositories. A project cannot set it;
// the user's environment is the user's own config.
const EnvTrusted = "TOOLHOST_TRUSTED_PROJECTS"

// Status is a project's trust at one moment.
type Status struct {
	// Manifest is the content scanned; nil when the scan failed.
	Manifest *Manifest
	// Trusted is true when there is nothing to trust or a person trusted
	// exactly this content.
	Trusted bool
	// ByEnv is true when EnvTrusted, not the store, trusts it.
	ByEnv bool
	// Err says why the project could not be judged (a store that does not
	// parse, a project too large): it is then untrusted.
	Err error
}

// Worktree is the project root judged.
func (s Status) Worktree() string {
	if s.Manifest == nil {
		return ""
	}
	return s.Manifest.Worktree
}

// Check scans the project and looks its digest up in the store.
func Check(o config.DirOptions, store Store) Status {
	m, err := Scan(o)
	if err != nil {
		return Status{Err: err}
	}
	if m.Empty() || trustedByEnv(o, m.Worktree) {
		return Status{Manifest: m, Trusted: true, ByEnv: !m.Empty()}
	}
	ok, err := store.Trusted(m.Worktree, m.Digest)
	return Status{Manifest: m, Trusted: ok, Err: err}
}

// Load loads the config of the project o names as its trust allows: the
// project's own files held back (config.LoadOptions.UntrustedProject)
// unless it is trusted and the config bytes read are the bytes the scan
// judged — a file swapped in between (by a process a command left
// running) makes the project untrusted for this load. Commands that load
// the config without a host call it; a host, through OpenProject.
func Load(o config.DirOptions, store Store) (*config.Loaded, Status, error) {
	st := Check(o, store)
	if hookAfterScan != nil {
		hookAfterScan()
	}
	lo := config.LoadOptions{Directory: o.Directory, Worktree: o.Worktree, Env: o.Env, Home: o.Home, UntrustedProject: !st.Trusted}
	loaded, err := config.Load(lo)
	if err != nil || !st.Trusted || st.Manifest == nil || st.ByEnv || st.Manifest.SameContent(loaded.ProjectSums) {
		return loaded, st, err
	}
	st = Status{Manifest: st.Manifest, Err: errors.New("its config changed while it was being loaded")}
	lo.UntrustedProject = true
	loaded, err = config.Load(lo)
	return loaded, st, err
}

// Notice is the one line every front end shows for an untrusted project.
func (s Status) Notice() string {
	if s.Trusted {
		return ""
	}
	msg := "this project's toolhost config and tools are not trusted, so only the user's own config is in effect (the project's deny rules still apply); review and trust them with `" + Command + "`"
	if wt := s.Worktree(); wt != "" {
		msg = "project " + wt + ": " + msg
	}
	if s.Err != nil {
		msg += " (" + s.Err.Error() + ")"
	}
	// It reaches terminals and, through toolhost mcp, a model's
	// instructions: a file name the project chose, quoted in the reason,
	// gets no line or escape of its own.
	return Printable(msg)
}

// Gate answers "may the project's current content load?" for a host
// that watches tool folders and finds a change: only when it is trusted
// now (the store holds its new digest, or EnvTrusted names it).
type Gate struct {
	opts  config.DirOptions
	store Store
}

// NewGate returns the gate of a project and store.
func NewGate(o config.DirOptions, store Store) *Gate { return &Gate{opts: o, store: store} }

// StillTrusted scans the project again and looks it up.
func (g *Gate) StillTrusted() bool {
	if g == nil {
		return true
	}
	return Check(g.opts, g.store).Trusted
}

// TrustedWith is StillTrusted, and moreover every file of content that
// inProject reports as the project's (path → hex SHA-256 of the bytes a
// source read) is listed in the trusted scan with that digest. A project
// trusted by EnvTrusted is trusted whatever its content.
func (g *Gate) TrustedWith(content map[string]string, inProject func(string) bool) bool {
	if g == nil {
		return true
	}
	st := Check(g.opts, g.store)
	if !st.Trusted {
		return false
	}
	if st.ByEnv || st.Manifest == nil {
		return true
	}
	sums := make(map[string]string, len(st.Manifest.Entries))
	for _, e := range st.Manifest.Entries {
		sums[e.Rel] = e.SHA256
	}
	for path, sum := range content {
		if !inProject(path) {
			continue
		}
		rel, ok := relIn(st.Manifest.Worktree, path)
		if !ok || sums[rel] == "" || sums[rel] != sum {
			return false
		}
	}
	return true
}

// relIn is path relative to worktree with slashes, as a manifest names
// its entries; false when it is not beneath worktree as written (the host
// names both from the same resolved worktree; anything else is refused).
func relIn(worktree, path string) (string, bool) {
	if !inside(worktree, path) {
		return "", false
	}
	r, _ := filepath.Rel(worktree, path)
	return filepath.ToSlash(r), true
}

// Who names the person trusting, for the store: the login name, when
// cheap to find.
func Who() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// trustedByEnv reports whether EnvTrusted names worktree or a directory
// above it.
func trustedByEnv(o config.DirOptions, worktree string) bool {
	env := o.Env
	if env == nil {
		env = os.Getenv
	}
	for _, d := range filepath.SplitList(env(EnvTrusted)) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if inside(filepath.Clean(d), worktree) {
			return true
		}
	}
	return false
}

// SameContent reports whether the config files a load read (path →
// SHA-256 hex, config.Loaded.ProjectSums) are the ones m hashed: a file
// swapped between the scan and the load fails it, and so does a config
// file the scan hashed that the load did not read — deleted or moved away
// in between, it would take its deny rules with it.
func (m *Manifest) SameContent(sums map[string]string) bool {
	byRel := map[string]string{}
	for _, e := range m.Entries {
		byRel[e.Rel] = e.SHA256
		if path := filepath.Join(m.Worktree, filepath.FromSlash(e.Rel)); e.Kind == "file" && slices.Contains(m.configFiles, path) {
			if _, read := sums[path]; !read {
				return false
			}
		}
	}
	for path, sum := range sums {
		rel, err := filepath.Rel(m.Worktree, path)
		if err != nil || byRel[filepath.ToSlash(rel)] != sum {
			return false
		}
	}
	return true
}
