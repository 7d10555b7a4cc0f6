package pkg

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/toolhost/toolhost/plugins/wasm"
)

// Verify and Repair are two commands on purpose. Verify only reads: it
// hashes every file as it finds it — the package blob, the OCI blobs, the
// unpacked modules — and checks the lock's signature over the blob, so a
// user who suspects tampering sees what was changed before anything
// overwrites the evidence. Repair then puts back what Verify found wrong:
// unpacked modules from the (verified) archive, blobs by fetching them
// again at the locked digest, signatures from the package's source.
// Loading (Open) keeps healing unpacked modules on its own, because the
// archive it restores from is verified first; it logs a warning so the
// change does not go unnoticed.

// ProblemKind says which kind of file a Problem is about.
type ProblemKind string

// The kinds of Problem.
const (
	// ProblemBlob is a file in the cache's sha256/ directory: the package
	// archive, or an OCI manifest, config or layer. Repair fetches it
	// again at its digest.
	ProblemBlob ProblemKind = "blob"
	// ProblemModule is a module unpacked from an archive under the
	// cache's unpacked/ directory. Repair unpacks it again from the
	// archive, once the archive itself matches the lock.
	ProblemModule ProblemKind = "module"
	// ProblemSignature is the signature recorded in toolhost.lock. Repair
	// fetches the signature from the package's source again and records it
	// only if it verifies with the key the lock names.
	ProblemSignature ProblemKind = "signature"
	// ProblemLock is an entry of toolhost.lock that contradicts the
	// package it pins (a malformed digest, another plugin's name). Repair
	// cannot know which side is right; restore the lock from version
	// control.
	ProblemLock ProblemKind = "lock"
)

// errNotRegular marks a cache file replaced by a directory, a symbolic
// link or a device: even when the bytes behind it hash right, it could
// change between the check and the load.
var errNotRegular = errors.New("not a regular file")

// Problem is one file that does not match what toolhost.lock pins.
type Problem struct {
	// Plugin is the plugin's name in the lock.
	Plugin string
	Kind   ProblemKind
	// File is the file as found: a cache blob, an unpacked module, or
	// toolhost.lock for a signature.
	File string
	// Want is the digest the file must have: the lock's for a blob, the
	// verified archive's for an unpacked module, and for a signature the
	// digest of the package it must sign.
	Want string
	// Got is the digest of the bytes found (for a signature, of the
	// signature text in the lock); "" when the file is missing or cannot
	// be read.
	Got string
	// Err is the cause: it wraps ErrDigestMismatch, ErrNotCached,
	// ErrBadSignature, ErrUnsigned, or another error.
	Err error
}

func (p Problem) Error() string {
	found := "the file has " + p.Got
	switch {
	case errors.Is(p.Err, ErrNotCached):
		found = "the file is missing"
	case errors.Is(p.Err, errNotRegular):
		found = "the file is not a regular file"
		if p.Got != "" {
			found += " (its target has " + p.Got + ")"
		}
	case p.Got == "" && p.Kind != ProblemSignature:
		found = fmt.Sprintf("it cannot be read: %v", p.Err)
	}
	switch p.Kind {
	case ProblemModule:
		return fmt.Sprintf("plugin %s: unpacked module %s: the verified archive says %s, %s", p.Plugin, p.File, p.Want, found)
	case ProblemSignature:
		// Err names the signature's digest and the package's.
		return fmt.Sprintf("plugin %s: %s: %v", p.Plugin, p.File, p.Err)
	case ProblemLock:
		return fmt.Sprintf("plugin %s: %s: %v; restore it from version control", p.Plugin, p.File, p.Err)
	}
	if p.Want == "" {
		return fmt.Sprintf("plugin %s: %s: %v", p.Plugin, p.File, p.Err)
	}
	return fmt.Sprintf("plugin %s: %s: toolhost.lock says %s, %s", p.Plugin, p.File, p.Want, found)
}

func (p Problem) Unwrap() error { return p.Err }

// Restored is one file Repair (or a fetch) put back.
type Restored struct {
	Plugin string
	Kind   ProblemKind
	// File is what was written: a cache blob, an unpacked module, or
	// toolhost.lock for a signature.
	File string
	// Digest is the digest the file has now.
	Digest string
	// From is where the bytes came from: "the verified archive <digest>",
	// or the reference fetched again.
	From string
}

func (r Restored) String() string {
	what := r.File
	if r.Kind == ProblemSignature {
		what = "the signature in " + r.File
	}
	return fmt.Sprintf("plugin %s: restored %s (%s) from %s", r.Plugin, what, r.Digest, r.From)
}

// Report is what Verify or Repair found and did.
type Report struct {
	// Plugins are the lock's entries (as they are after a repair).
	Plugins []Locked
	// Problems are every mismatch found, as found, before any repair.
	Problems []Problem
	// Restored is what Repair put back; always empty after Verify.
	Restored []Restored
	// Failed says, per plugin, why Repair could not restore something.
	Failed []error
	// Remaining are the problems still there after Repair; after Verify,
	// the same as Problems.
	Remaining []Problem
}

// OK says whether the cache and the lock match now.
func (r *Report) OK() bool { return len(r.Remaining) == 0 }

// Verify re-hashes the cache against the lock and changes nothing on
// disk: every package blob, every OCI blob and unpacked module is hashed
// as found, and the signature the lock records is checked over the blob.
// Each mismatch is one Problem naming the file and both digests. The
// error is for a lock that cannot be read.
func (m *Manager) Verify() (*Report, error) {
	lock, err := ReadLock(m.LockPath)
	if err != nil {
		return nil, err
	}
	r := &Report{Plugins: lock.Plugins}
	for _, e := range lock.Plugins {
		r.Problems = append(r.Problems, m.check(e)...)
	}
	r.Remaining = r.Problems
	return r, nil
}

// Repair verifies like Verify, then restores what does not match:
// unpacked modules from the verified archive, missing or changed blobs by
// fetching the package again at its locked digest (never a moved tag),
// and a signature that no longer verifies by fetching the package's
// signature again and recording it only if it verifies with the key the
// lock names. It then verifies again; Remaining says what is still wrong
// and Failed why.
func (m *Manager) Repair(ctx context.Context) (*Report, error) {
	lock, err := ReadLock(m.LockPath)
	if err != nil {
		return nil, err
	}
	r := &Report{}
	lockChanged := false
	for i := range lock.Plugins {
		e := &lock.Plugins[i]
		ps := m.check(*e)
		// A bad blob hides the modules and signature behind it, so a
		// second pass looks at what the first repair uncovered.
		for pass := 0; pass < 2 && len(ps) > 0; pass++ {
			r.Problems = append(r.Problems, ps...)
			restored, uncovered, err := m.repair(ctx, e, ps)
			r.Problems = append(r.Problems, uncovered...)
			r.Restored = append(r.Restored, restored...)
			for _, x := range restored {
				lockChanged = lockChanged || x.Kind == ProblemSignature
			}
			if err != nil {
				r.Failed = append(r.Failed, fmt.Errorf("plugin %s: %w", e.Name, err))
				ps = m.check(*e)
				break
			}
			ps = m.check(*e)
		}
		r.Remaining = append(r.Remaining, ps...)
	}
	r.Plugins = lock.Plugins
	if lockChanged {
		if err := lock.Write(m.LockPath); err != nil {
			return r, err
		}
	}
	return r, nil
}

// check inspects one locked plugin without writing anything.
func (m *Manager) check(e Locked) []Problem {
	lockProblem := func(err error) []Problem {
		return []Problem{{Plugin: e.Name, Kind: ProblemLock, File: m.LockPath, Err: err}}
	}
	if _, err := hexOf(e.Digest); err != nil {
		return lockProblem(err)
	}
	blobPath := m.Cache.Path(e.Digest)
	blob, got, err := inspectFile(blobPath, e.Digest)
	if err != nil {
		// Nothing behind a wrong blob can be checked: the modules and
		// the signature are only meaningful over the locked bytes.
		return []Problem{{Plugin: e.Name, Kind: ProblemBlob, File: blobPath, Want: e.Digest, Got: got, Err: err}}
	}
	var ps []Problem
	if p, ok := m.checkSignatureOf(e, blob); !ok {
		ps = append(ps, p)
	}
	var name string
	if e.Kind == KindOCI {
		om, err := parseOCIManifest(blob)
		if err != nil {
			return append(ps, lockProblem(fmt.Errorf("the package %s it pins: %w", e.Digest, err))...)
		}
		for _, d := range append([]ocispec.Descriptor{om.Config}, om.Layers...) {
			want := d.Digest.String()
			if _, err := hexOf(want); err != nil {
				return append(ps, lockProblem(fmt.Errorf("the package %s it pins names a blob %w", e.Digest, err))...)
			}
			b, got, err := inspectFile(m.Cache.Path(want), want)
			if err != nil {
				ps = append(ps, Problem{Plugin: e.Name, Kind: ProblemBlob, File: m.Cache.Path(want), Want: want, Got: got, Err: err})
				continue
			}
			if d.Digest == om.Config.Digest {
				if pm, err := wasm.ParseManifest(b); err == nil {
					name = pm.Name
				}
			}
		}
	} else {
		ac, err := readArchive(blob)
		if err != nil {
			return append(ps, lockProblem(fmt.Errorf("the package %s it pins: %w", e.Digest, err))...)
		}
		name = ac.manifest.Name
		dir := m.Cache.unpackedDir(e.Digest)
		for _, mod := range ac.manifest.Modules {
			want := Digest(ac.files[path.Clean(mod)])
			p := filepath.Join(dir, filepath.FromSlash(path.Clean(mod)))
			if _, got, err := inspectFile(p, want); err != nil {
				ps = append(ps, Problem{Plugin: e.Name, Kind: ProblemModule, File: p, Want: want, Got: got, Err: err})
			}
		}
	}
	if name != "" && name != e.Name {
		ps = append(ps, lockProblem(fmt.Errorf("the package %s it pins is named %s", e.Digest, name))...)
	}
	return ps
}

// checkSignatureOf checks the lock's signature over blob as Open does,
// and also that it is still made by the key the lock names: a signature
// removed from the lock, or by a key no longer trusted, is reported
// rather than silently treated as unsigned.
func (m *Manager) checkSignatureOf(e Locked, blob []byte) (Problem, bool) {
	if e.Kind == KindDir {
		return Problem{}, true
	}
	p := Problem{Plugin: e.Name, Kind: ProblemSignature, File: m.LockPath, Want: e.Digest}
	what := "the package " + e.Digest
	if e.Signature != "" {
		p.Got = Digest([]byte(e.Signature))
		what = fmt.Sprintf("the signature (%s) of the package %s", p.Got, e.Digest)
	}
	st, err := checkSignature(m.Trust, blob, []byte(e.Signature), what)
	if err == nil && e.KeyID != "" && st.KeyID != e.KeyID {
		if e.Signature == "" {
			err = fmt.Errorf("%s: %w, but %s says key %s signed it", what, ErrUnsigned, LockFile, e.KeyID)
		} else {
			err = fmt.Errorf("%s: %w with key %s, which %s names: that key is not in trust.keys (add it back if you still trust it), or the signature is by another key", what, ErrBadSignature, e.KeyID, LockFile)
		}
	}
	if err == nil {
		return Problem{}, true
	}
	p.Err = err
	return p, false
}

// repair restores what check found wrong with one plugin; e's Signature
// changes when a signature is restored. uncovered are unpacked modules a
// fetch found changed behind a bad blob, which check could not see.
func (m *Manager) repair(ctx context.Context, e *Locked, ps []Problem) (restored []Restored, uncovered []Problem, err error) {
	var blobs, modules, sigs []Problem
	for _, p := range ps {
		switch p.Kind {
		case ProblemBlob:
			blobs = append(blobs, p)
		case ProblemModule:
			modules = append(modules, p)
		case ProblemSignature:
			sigs = append(sigs, p)
		case ProblemLock:
			return nil, nil, fmt.Errorf("%s does not match the package it pins; restore it from version control, or remove the plugin and add it again", m.LockPath)
		}
	}
	fromArchive := "the verified archive " + e.Digest
	switch {
	case len(blobs) > 0:
		for _, p := range blobs {
			if err := m.Cache.clearNonRegular(p.File, p.Err); err != nil {
				return restored, uncovered, err
			}
		}
		ref, err := ParseRef(e.Ref, m.Base)
		if err != nil {
			return restored, uncovered, fmt.Errorf("fetch again at %s: %w", e.Digest, err)
		}
		f, err := m.fetch(ctx, ref, e.Digest)
		if err != nil {
			return restored, uncovered, fmt.Errorf("fetch again at %s: %w", e.Digest, err)
		}
		for _, p := range blobs {
			restored = append(restored, Restored{Plugin: e.Name, Kind: ProblemBlob, File: p.File, Digest: p.Want, From: e.Ref})
		}
		uncovered = f.restored
		for _, p := range f.restored {
			restored = append(restored, Restored{Plugin: e.Name, Kind: ProblemModule, File: p.File, Digest: p.Want, From: fromArchive})
		}
	case len(modules) > 0:
		for _, p := range modules {
			if err := m.Cache.clearNonRegular(p.File, p.Err); err != nil {
				return restored, uncovered, err
			}
		}
		blob, err := m.Cache.Read(e.Digest)
		if err != nil {
			return restored, uncovered, err
		}
		// Every module found wrong is written again, including those of
		// an unpacked directory deleted whole, which unpack does not count
		// as restored.
		if _, _, err := m.Cache.unpack(e.Digest, blob); err != nil {
			return restored, uncovered, err
		}
		for _, p := range modules {
			restored = append(restored, Restored{Plugin: e.Name, Kind: ProblemModule, File: p.File, Digest: p.Want, From: fromArchive})
		}
	}
	if len(sigs) > 0 {
		r, err := m.restoreSignature(ctx, e)
		if err != nil {
			return restored, uncovered, err
		}
		restored = append(restored, r)
	}
	return restored, uncovered, nil
}

// restoreSignature fetches the signature of e's package from its source
// again and records it in e when it verifies over the cached blob with
// the key the lock names.
func (m *Manager) restoreSignature(ctx context.Context, e *Locked) (Restored, error) {
	blob, err := m.Cache.Read(e.Digest)
	if err != nil {
		return Restored{}, err
	}
	ref, err := ParseRef(e.Ref, m.Base)
	if err != nil {
		return Restored{}, fmt.Errorf("fetch the signature again: %w", err)
	}
	var sig []byte
	from := e.Ref + ".minisig"
	switch ref.Kind {
	case KindArchive:
		sig, err = readFileLimited(ref.Path+".minisig", maxSignatureBytes, nil)
	case KindHTTPS:
		sig, err = m.download(ctx, ref.URL+".minisig", true, maxSignatureBytes, nil)
	case KindOCI:
		from = fmt.Sprintf("oci://%s/%s:%s", ref.Registry, ref.Repository, sigTag(e.Digest))
		repo, rerr := m.Registry.repository(ref)
		if rerr != nil {
			return Restored{}, rerr
		}
		sig, err = fetchOCISignature(ctx, repo, e.Digest)
	default:
		return Restored{}, fmt.Errorf("a %s package carries no signature; remove the signature from %s", ref.Kind, m.LockPath)
	}
	if err != nil {
		return Restored{}, fmt.Errorf("fetch the signature again from %s: %w", from, err)
	}
	if len(sig) == 0 {
		return Restored{}, fmt.Errorf("%s has no signature for %s any more; if you still trust the package, run `toolhost plugin remove %s` and add it again", e.Ref, e.Digest, e.Name)
	}
	st, err := checkSignature(m.Trust, blob, sig, from)
	if err != nil {
		return Restored{}, err
	}
	keyID := st.KeyID
	if keyID == "" || (e.KeyID != "" && keyID != e.KeyID) {
		return Restored{}, fmt.Errorf("%s is not signed by key %s, which %s names; if you trust the new signer, remove the plugin and add it again", from, e.KeyID, m.LockPath)
	}
	e.Signature, e.KeyID = string(sig), keyID
	return Restored{Plugin: e.Name, Kind: ProblemSignature, File: m.LockPath, Digest: Digest(sig), From: from}, nil
}

// inspectFile reads the file at p as it is and checks it hashes to want,
// without following a symbolic link for the check of what p is. got is
// the digest of what was read, "" when nothing could be.
func inspectFile(p, want string) (data []byte, got string, err error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", ErrNotCached
	}
	if err != nil {
		return nil, "", err
	}
	if !fi.Mode().IsRegular() {
		if b, rerr := os.ReadFile(p); rerr == nil {
			got = Digest(b)
		}
		return nil, got, errNotRegular
	}
	data, err = os.ReadFile(p)
	if err != nil {
		return nil, "", err
	}
	if got = Digest(data); got != want {
		return nil, got, mismatch(want, got)
	}
	return data, got, nil
}

// clearNonRegular removes a directory, link or device where the cache
// expects a file, so that writing the file again replaces it rather than
// what it points at. Only paths inside the cache are touched.
func (c Cache) clearNonRegular(p string, cause error) error {
	if !errors.Is(cause, errNotRegular) {
		return nil
	}
	rel, err := filepath.Rel(c.Dir, p)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s is outside the plugin cache %s; not removing it", p, c.Dir)
	}
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("remove %s: %w", p, err)
	}
	return nil
}
