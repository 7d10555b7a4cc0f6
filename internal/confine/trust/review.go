package trust

import (
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/runtime/config"
)

// Review is what a front end shows a person deciding whether to trust a
// project (the inbox page's banner).
type Review struct {
	Project string `json:"project"`
	Trusted bool   `json:"trusted"`
	// Digest is the content shown; trusting names it, so what is trusted
	// is exactly what was shown.
	Digest string `json:"digest,omitempty"`
	// Notice is the untrusted project's one line.
	Notice string `json:"notice,omitempty"`
	// Summary is what trusting would let the project run, grant and
	// loosen.
	Summary Summary `json:"summary"`
	Files   []Entry `json:"files,omitempty"`
	// Problem says why the project cannot be trusted as it is (a config
	// that does not load, a project too large, a store that does not
	// parse).
	Problem string `json:"problem,omitempty"`
}

// ErrChanged is returned by Reviewer.Trust when the project's content is
// no longer the content shown.
var ErrChanged = errors.New("the project's config or tools changed since they were shown")

// Reviewer looks at a project now, and trusts the content a person saw.
type Reviewer struct {
	Dirs  config.DirOptions
	Store Store
}

// hookAfterScan runs between the scan and the load of a review, for
// tests that change the project there.
var hookAfterScan func()

// Review scans the project and describes it. The summary is made from
// the bytes the digest covers: content that changes between the scan and
// the load is reported as a problem, with no digest to trust.
func (r Reviewer) Review() Review {
	st := Check(r.Dirs, r.Store)
	rv := Review{Project: st.Worktree(), Trusted: st.Trusted, Notice: st.Notice()}
	if st.Err != nil {
		rv.Problem = st.Err.Error()
	}
	if st.Manifest == nil {
		return rv
	}
	if hookAfterScan != nil {
		hookAfterScan()
	}
	rv.Digest, rv.Files = st.Manifest.Digest, st.Manifest.Entries
	full, err := r.Load(st.Manifest)
	switch {
	case errors.Is(err, ErrChanged):
		rv.Problem = err.Error()
		rv.Digest = ""
		rv.Summary = Summarize(nil, st.Manifest)
		return rv
	case err != nil:
		rv.Problem = fmt.Sprintf("the project's config does not load, so what it would do cannot be shown: %v", err)
		rv.Summary = Summarize(nil, st.Manifest)
		return rv
	}
	rv.Summary = Summarize(full, st.Manifest)
	return rv
}

// Load loads the project's config as trusting it would, and checks that
// the config bytes read are the ones m hashed: a file swapped after the
// scan (by a process left running in the project) is ErrChanged, so a
// summary never describes other content than the digest a person trusts.
func (r Reviewer) Load(m *Manifest) (*config.Loaded, error) {
	full, err := config.Load(config.LoadOptions{Directory: r.Dirs.Directory, Worktree: r.Dirs.Worktree, Env: r.Dirs.Env, Home: r.Dirs.Home})
	if err != nil {
		return nil, err
	}
	if !m.SameContent(full.ProjectSums) {
		return nil, fmt.Errorf("%w while being read; look at them again", ErrChanged)
	}
	return full, nil
}

// Trust trusts the project's content if its digest is still digest, the
// one the person was shown; else ErrChanged.
func (r Reviewer) Trust(digest string) error {
	m, err := Scan(r.Dirs)
	if err != nil {
		return err
	}
	if m.Empty() {
		return errors.New("the project has no config or tool files of its own: nothing to trust")
	}
	if m.Digest != digest {
		return fmt.Errorf("%w; look at them again before trusting", ErrChanged)
	}
	if _, err := r.Load(m); errors.Is(err, ErrChanged) {
		return err
	} else if err != nil {
		return fmt.Errorf("not trusted: the project's config does not load: %w", err)
	}
	return r.Store.Trust(m.Worktree, m.Digest, Who())
}
