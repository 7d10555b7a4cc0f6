package pkg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"

	"github.com/toolhost/toolhost/internal/observe/progress"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime/config"
)

// Manager adds, updates, removes and verifies the plugins of one project.
type Manager struct {
	// Cache holds downloaded packages.
	Cache Cache
	// LockPath is the project's toolhost.lock.
	LockPath string
	// Base resolves relative local references: the project root.
	Base string
	// Trust is the signature policy.
	Trust config.Trust
	// HTTPClient downloads https:// packages. Default http.DefaultClient.
	HTTPClient *http.Client
	// Registry configures OCI access.
	Registry RegistryOptions
	// MaxArchiveBytes is the largest package fetch accepts, whatever its
	// kind; a larger one is refused with an *ArchiveTooLargeError before
	// anything is written to the cache. 0 means
	// config.DefaultPluginMaxArchiveBytes (100 MB); the host sets it from
	// the config's plugin_limits.max_archive_bytes.
	MaxArchiveBytes int64
	// Consent asks a person to agree to capabilities. Nil refuses every
	// request that needs consent (pass yes to agree without asking).
	Consent func(ctx context.Context, req ConsentRequest) (bool, error)
	// Inspect loads a fetched plugin and returns its tool ids and hook
	// exports, refusing a plugin that does not load. Nil skips the check.
	Inspect func(ctx context.Context, src wasm.Bundle) (tools, hooks []string, err error)
	// Logger receives a warning for every cached file that was found
	// changed and restored (Open heals unpacked modules from the verified
	// archive, so the tampered code never runs, but the user should learn
	// that something changed their cache). Nil discards.
	Logger *slog.Logger
}

// fetched is a package downloaded into the cache and opened.
type fetched struct {
	kind   Kind
	digest string
	size   int64
	blob   []byte
	sig    []byte
	src    wasm.Bundle
	// restored are the unpacked modules that were found changed and
	// written again.
	restored []Problem
}

// fetch downloads ref into the cache. With want set (the locked digest),
// only those bytes are accepted: a tag that moved is not followed, and a
// download that hashes differently is refused with both digests. A package
// over the size limit is refused before anything is written to the cache:
// by its declared size when the source states one (a file's size, a
// Content-Length, an OCI descriptor), else by reading at most one byte past
// the limit.
func (m *Manager) fetch(ctx context.Context, ref Ref, want string) (_ *fetched, err error) {
	f := &fetched{kind: ref.Kind}
	if ref.Kind == KindOCI || ref.Kind == KindHTTPS {
		task := progress.Start(ctx, "fetching "+ref.Raw)
		ctx = withTask(ctx, task)
		defer func() { task.Done(fmt.Sprintf("fetched %s (%s)", ref.Raw, progress.Bytes(f.size)), err) }()
	}
	limit := m.archiveLimit()
	tooLarge := func(size int64) error { return &ArchiveTooLargeError{Ref: ref.Raw, Size: size, Limit: limit} }
	switch ref.Kind {
	case KindOCI:
		if f.blob, f.sig, err = m.Cache.pullOCI(ctx, ref, want, m.Registry, limit); err != nil {
			return nil, err
		}
	case KindDir:
		if f.blob, _, err = Pack(ref.Path); err != nil {
			return nil, err
		}
		if int64(len(f.blob)) > limit {
			return nil, tooLarge(int64(len(f.blob)))
		}
	case KindArchive:
		if f.blob, err = readFileLimited(ref.Path, limit, tooLarge); err != nil {
			return nil, err
		}
		if sig, err := readFileLimited(ref.Path+".minisig", maxSignatureBytes, nil); err == nil {
			f.sig = sig
		}
	case KindHTTPS:
		if f.blob, err = m.download(ctx, ref.URL, true, limit, tooLarge); err != nil {
			return nil, err
		}
		if f.sig, err = m.download(ctx, ref.URL+".minisig", false, maxSignatureBytes, nil); err != nil {
			return nil, err
		}
	}
	f.digest, f.size = Digest(f.blob), int64(len(f.blob))
	if want != "" && f.digest != want {
		return nil, fmt.Errorf("%s: %w", ref.Raw, mismatch(want, f.digest))
	}
	if _, err := m.Cache.Put(f.blob, f.digest); err != nil {
		return nil, err
	}
	if f.src, f.restored, err = m.Cache.source(f.kind, f.digest, f.blob); err != nil {
		return nil, fmt.Errorf("%s: %w", ref.Raw, err)
	}
	return f, nil
}

// download GETs url; a 404 is nil, nil unless required. A body over limit
// bytes — by its Content-Length, or by what arrives — is refused with
// tooLarge(size) (size -1 when the server did not say), or a plain error
// when tooLarge is nil.
func (m *Manager) download(ctx context.Context, url string, required bool, limit int64, tooLarge func(size int64) error) ([]byte, error) {
	hc := m.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound && !required {
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download %s: %s", url, resp.Status)
	}
	over := func(size int64) error {
		if tooLarge != nil {
			return tooLarge(size)
		}
		return fmt.Errorf("download %s: larger than %d bytes", url, limit)
	}
	if resp.ContentLength > limit {
		return nil, over(resp.ContentLength)
	}
	b, err := io.ReadAll(io.LimitReader(&counting{r: resp.Body, task: taskOf(ctx)}, limit+1))
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	if int64(len(b)) > limit {
		return nil, over(-1)
	}
	return b, nil
}

// readFileLimited reads a file of at most limit bytes: its size is checked
// first, and the read stops one byte past the limit in case it grew since.
func readFileLimited(path string, limit int64, tooLarge func(size int64) error) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	over := func(size int64) error {
		if tooLarge != nil {
			return tooLarge(size)
		}
		return fmt.Errorf("read %s: larger than %d bytes", path, limit)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, over(fi.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, over(-1)
	}
	return b, nil
}

// source opens a cached package of a kind; restored are the unpacked
// modules it found changed and wrote again.
func (c Cache) source(kind Kind, digest string, blob []byte) (wasm.Bundle, []Problem, error) {
	if kind == KindOCI {
		src, err := c.ociSource(blob)
		return src, nil, err
	}
	return c.unpack(digest, blob)
}

// warnRestored logs one warning per file found changed and restored.
func (m *Manager) warnRestored(restored []Problem) {
	if m.Logger == nil {
		return
	}
	for _, p := range restored {
		found := p.Got
		if found == "" {
			found = "missing"
		}
		m.Logger.Warn("plugin cache was changed; restored the file from the verified archive",
			"plugin", p.Plugin, "file", p.File, "want", p.Want, "found", found,
			"remedy", "if you did not change it, check what else writes to the cache")
	}
}

// Open returns the plugin a lock entry names, from the cache only: it
// never touches the network. The package is re-hashed against the lock,
// its signature checked against the trust policy, and it runs with the
// capabilities the lock granted. An unpacked module found changed is
// written again from the verified archive, so the changed code never
// runs, and logged as a warning to Logger (`toolhost plugin verify`
// reports such changes without repairing them).
func (m *Manager) Open(e Locked) (wasm.Bundle, error) {
	blob, err := m.Cache.Read(e.Digest)
	if err != nil {
		return wasm.Bundle{}, fmt.Errorf("plugin %s: %w", e.Name, err)
	}
	if err := m.checkLockedSignature(e, blob); err != nil {
		return wasm.Bundle{}, err
	}
	src, restored, err := m.Cache.source(e.Kind, e.Digest, blob)
	m.warnRestored(restored)
	if err != nil {
		return wasm.Bundle{}, fmt.Errorf("plugin %s: %w", e.Name, err)
	}
	if src.Manifest.Name != e.Name {
		return wasm.Bundle{}, fmt.Errorf("plugin %s: the cached package is named %s; run `toolhost plugin update %s`", e.Name, src.Manifest.Name, e.Name)
	}
	src.Granted, src.Locked = e.Granted, true
	return src, nil
}

// checkLockedSignature applies the trust policy at load time to the
// signature recorded in the lock. Local directories are the user's own
// files and need none.
func (m *Manager) checkLockedSignature(e Locked, blob []byte) error {
	if e.Kind == KindDir {
		return nil
	}
	_, err := checkSignature(m.Trust, blob, []byte(e.Signature), "plugin "+e.Name)
	return err
}

// Add resolves a reference, downloads and verifies it, asks consent to
// its capabilities (unless yes), and records it in the lock. A reference
// already locked is fetched at its locked digest, without asking again;
// Add with no reference does that for every locked plugin (InstallLocked).
func (m *Manager) Add(ctx context.Context, raw string, yes bool) (Locked, error) {
	lock, err := ReadLock(m.LockPath)
	if err != nil {
		return Locked{}, err
	}
	ref, err := ParseRef(raw, m.Base)
	if err != nil {
		return Locked{}, err
	}
	if e, ok := lock.ByRef(raw); ok {
		f, err := m.fetch(ctx, ref, e.Digest)
		if err != nil {
			return Locked{}, err
		}
		m.warnRestored(f.restored)
		return *e, m.checkLockedSignature(*e, f.blob)
	}
	f, err := m.fetch(ctx, ref, "")
	if err != nil {
		return Locked{}, err
	}
	m.warnRestored(f.restored)
	sig, err := m.signature(f, raw)
	if err != nil {
		return Locked{}, err
	}
	man := f.src.Manifest
	if other, ok := lock.ByName(man.Name); ok {
		return Locked{}, fmt.Errorf("a plugin named %s is already added from %s; remove it first (toolhost plugin remove %s)", man.Name, other.Ref, man.Name)
	}
	e := Locked{Name: man.Name, Version: man.Version, Ref: raw, Kind: f.kind, Digest: f.digest, Size: f.size, Granted: man.Capabilities, KeyID: sig.KeyID}
	if sig.KeyID != "" {
		e.Signature = string(f.sig)
	}
	if err := m.inspect(ctx, f.src, &e); err != nil {
		return Locked{}, err
	}
	req := ConsentRequest{Name: man.Name, Version: man.Version, Ref: raw, Digest: f.digest, Capabilities: man.Capabilities, Lines: man.Capabilities.Describe(), Signature: sig}
	if err := m.consent(ctx, req, yes); err != nil {
		return Locked{}, err
	}
	lock.put(e)
	if err := lock.Write(m.LockPath); err != nil {
		return Locked{}, err
	}
	return e, nil
}

// InstallLocked fetches every locked plugin missing from the cache, at
// its locked digest (a fresh checkout, a cleaned cache).
func (m *Manager) InstallLocked(ctx context.Context) ([]Locked, error) {
	lock, err := ReadLock(m.LockPath)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, e := range lock.Plugins {
		if _, err := m.Open(e); err == nil {
			continue
		}
		ref, err := ParseRef(e.Ref, m.Base)
		var f *fetched
		if err == nil {
			if f, err = m.fetch(ctx, ref, e.Digest); err == nil {
				m.warnRestored(f.restored)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %s: %w", e.Name, err))
		}
	}
	return lock.Plugins, errors.Join(errs...)
}

func (m *Manager) signature(f *fetched, what string) (SignatureStatus, error) {
	if f.kind == KindDir {
		return SignatureStatus{}, nil
	}
	return checkSignature(m.Trust, f.blob, f.sig, what)
}

func (m *Manager) inspect(ctx context.Context, src wasm.Bundle, e *Locked) error {
	if m.Inspect == nil {
		return nil
	}
	src.Granted = e.Granted
	tools, hooks, err := m.Inspect(ctx, src)
	if err != nil {
		return err
	}
	e.Tools, e.Hooks = tools, hooks
	return nil
}

// Change is what Update did to one plugin.
type Change struct {
	Name                   string
	FromVersion, ToVersion string
	FromDigest, ToDigest   string
	// Increases are the capabilities the new version asks for beyond
	// those granted.
	Increases []string
	// Updated says the lock now names the new version; false when it was
	// already current or consent was refused (Err).
	Updated bool
	Err     error
}

// Update re-resolves the references of the named plugins (all when none
// are named) and moves the lock to what they point at now. A version
// asking for more than was granted needs consent again; without it the
// plugin stays at its locked version.
func (m *Manager) Update(ctx context.Context, names []string, yes bool) ([]Change, error) {
	lock, err := ReadLock(m.LockPath)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, ok := lock.ByName(n); !ok {
			return nil, fmt.Errorf("no plugin named %s in %s", n, m.LockPath)
		}
	}
	var changes []Change
	for i := range lock.Plugins {
		old := lock.Plugins[i]
		if len(names) > 0 && !slices.Contains(names, old.Name) {
			continue
		}
		c := Change{Name: old.Name, FromVersion: old.Version, FromDigest: old.Digest, ToVersion: old.Version, ToDigest: old.Digest}
		c.Err = func() error {
			ref, err := ParseRef(old.Ref, m.Base)
			if err != nil {
				return err
			}
			f, err := m.fetch(ctx, ref, "")
			if err != nil {
				return err
			}
			m.warnRestored(f.restored)
			if f.digest == old.Digest {
				return nil
			}
			sig, err := m.signature(f, old.Ref)
			if err != nil {
				return err
			}
			man := f.src.Manifest
			if man.Name != old.Name {
				return fmt.Errorf("%s now holds a plugin named %s; remove %s and add it again", old.Ref, man.Name, old.Name)
			}
			c.ToVersion, c.ToDigest = man.Version, f.digest
			e := Locked{Name: man.Name, Version: man.Version, Ref: old.Ref, Kind: f.kind, Digest: f.digest, Size: f.size, Granted: man.Capabilities, KeyID: sig.KeyID}
			if sig.KeyID != "" {
				e.Signature = string(f.sig)
			}
			if err := m.inspect(ctx, f.src, &e); err != nil {
				return err
			}
			c.Increases = man.Capabilities.Exceeds(old.Granted)
			if len(c.Increases) > 0 {
				req := ConsentRequest{Name: man.Name, Version: man.Version, Ref: old.Ref, Digest: f.digest, Capabilities: man.Capabilities, Lines: c.Increases, Update: true, Previous: old.Version, Signature: sig}
				if err := m.consent(ctx, req, yes); err != nil {
					return err
				}
			}
			lock.Plugins[i] = e
			c.Updated = true
			return nil
		}()
		changes = append(changes, c)
	}
	if err := lock.Write(m.LockPath); err != nil {
		return changes, err
	}
	return changes, nil
}

// Remove deletes a plugin from the lock and returns its entry (whose Ref
// the caller removes from the config). Cached blobs stay; they are shared
// by content and cheap to keep.
func (m *Manager) Remove(name string) (Locked, error) {
	lock, err := ReadLock(m.LockPath)
	if err != nil {
		return Locked{}, err
	}
	e, ok := lock.remove(name)
	if !ok {
		return Locked{}, fmt.Errorf("no plugin named %s in %s", name, m.LockPath)
	}
	return e, lock.Write(m.LockPath)
}

// taskKey carries the progress task of a fetch to its downloads.
type taskKey struct{}

func withTask(ctx context.Context, t *progress.Task) context.Context {
	return context.WithValue(ctx, taskKey{}, t)
}

func taskOf(ctx context.Context) *progress.Task {
	t, _ := ctx.Value(taskKey{}).(*progress.Task)
	return t
}

// counting tells a fetch's progress task how many bytes have arrived.
type counting struct {
	r    io.Reader
	task *progress.Task
	n    int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.task.Set(progress.Bytes(c.n))
	return n, err
}
