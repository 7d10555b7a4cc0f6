package trust

import (
	"os/user"
	"sync"

	"github.com/toolhost/toolhost/runtime/config"
)

// Command is what a person runs to review and trust a project.
const Command = "toolhost trust"

// Status is a project's trust at one moment.
type Status struct {
	// Manifest is the content scanned; nil when the scan failed.
	Manifest *Manifest
	// Trusted is true when there is nothing to trust or a person trusted
	// exactly this content.
	Trusted bool
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
	if m.Empty() {
		return Status{Manifest: m, Trusted: true}
	}
	ok, err := store.Trusted(m.Worktree, m.Digest)
	return Status{Manifest: m, Trusted: ok, Err: err}
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
	return msg
}

// Gate answers "is the project still trusted as it was at start?" for a
// host that watches tool folders, rescanning only when a file changed.
type Gate struct {
	opts   config.DirOptions
	digest string // the digest trusted at start; "" when not trusted

	mu   sync.Mutex
	last string
}

// NewGate returns a gate for a project whose status at start was st.
func NewGate(o config.DirOptions, st Status) *Gate {
	g := &Gate{opts: o}
	if st.Trusted && st.Manifest != nil {
		g.digest = st.Manifest.Digest
		g.last = g.digest
	}
	return g
}

// StillTrusted rescans the project: true when it was trusted at start and
// its content is unchanged (or it had none and still has none).
func (g *Gate) StillTrusted() bool {
	if g == nil {
		return true
	}
	m, err := Scan(g.opts)
	if err != nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.last = m.Digest
	return m.Digest == g.digest && (g.digest != "" || m.Empty())
}

// Who names the person trusting, for the store: the login name, when
// cheap to find.
func Who() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
