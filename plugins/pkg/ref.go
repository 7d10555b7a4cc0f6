package pkg

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Kind says where a plugin reference points.
type Kind string

// The reference kinds.
const (
	KindOCI     Kind = "oci"     // oci://registry/repository:tag or @sha256:…
	KindHTTPS   Kind = "https"   // https://host/path/plugin.tar.gz
	KindDir     Kind = "dir"     // a local plugin directory
	KindArchive Kind = "archive" // a local .tar.gz made by Pack
)

// Ref is a parsed plugin reference.
type Ref struct {
	// Raw is the reference as written in the config.
	Raw  string
	Kind Kind
	// OCI: Registry ("ghcr.io", "127.0.0.1:5000"), Repository
	// ("acme/jira"), and Tag or Digest.
	Registry, Repository, Tag, Digest string
	// HTTPS: URL. Local: Path, absolute.
	URL  string
	Path string
}

// ParseRef parses a reference. Relative local paths resolve against base
// (the project root, where toolhost.lock lives). Plain http:// is refused:
// a package must come over TLS or from the disk.
func ParseRef(raw, base string) (Ref, error) {
	r := Ref{Raw: raw}
	switch {
	case strings.HasPrefix(raw, "oci://"):
		rest := strings.TrimPrefix(raw, "oci://")
		reg, repo, ok := strings.Cut(rest, "/")
		if !ok || reg == "" || repo == "" {
			return Ref{}, fmt.Errorf("plugin reference %q: want oci://registry/repository:tag", raw)
		}
		r.Kind, r.Registry = KindOCI, reg
		if name, dig, ok := strings.Cut(repo, "@"); ok {
			if !strings.HasPrefix(dig, "sha256:") || len(dig) != 71 {
				return Ref{}, fmt.Errorf("plugin reference %q: digest must be sha256:<64 hex digits>", raw)
			}
			repo, r.Digest = name, dig
		}
		if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
			repo, r.Tag = repo[:i], repo[i+1:]
		}
		if r.Tag == "" && r.Digest == "" {
			return Ref{}, fmt.Errorf("plugin reference %q names no tag or digest; pin one: %s:1.0.0", raw, raw)
		}
		r.Repository = repo
	case strings.HasPrefix(raw, "https://"):
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return Ref{}, fmt.Errorf("plugin reference %q is not a valid URL", raw)
		}
		r.Kind, r.URL = KindHTTPS, raw
	case strings.HasPrefix(raw, "http://"):
		return Ref{}, fmt.Errorf("plugin reference %q uses plain http; use https:// so the download cannot be altered on the way", raw)
	case strings.Contains(raw, "://"):
		return Ref{}, fmt.Errorf("plugin reference %q: unknown scheme; use oci://, https:// or a local path", raw)
	default:
		p := raw
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		r.Path = filepath.Clean(p)
		st, err := os.Stat(r.Path)
		switch {
		case err != nil:
			return Ref{}, fmt.Errorf("plugin reference %q: %w", raw, err)
		case st.IsDir():
			r.Kind = KindDir
		default:
			r.Kind = KindArchive
		}
	}
	return r, nil
}

// String returns the reference as written.
func (r Ref) String() string { return r.Raw }

// ociRef is registry/repository:tag or @digest, as oras takes it.
func (r Ref) ociRef() string {
	s := r.Registry + "/" + r.Repository
	switch {
	case r.Digest != "":
		return s + "@" + r.Digest
	default:
		return s + ":" + r.Tag
	}
}
