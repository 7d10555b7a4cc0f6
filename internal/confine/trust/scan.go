package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/runtime/config"
)

// Limits on what Scan reads, so a hostile or huge project cannot make
// every host start hash for long: past them the project is not trusted
// and the error says why.
const (
	MaxFiles = 4096
	MaxBytes = 64 << 20
	maxDepth = 16
)

// Folders of a project config directory whose files run as tools or
// plugins; the config files themselves come from config.ProjectFiles.
var toolFolders = []string{"tool", "tools", "plugin", "plugins"}

// OpenCode's project folder and the tool folders toolhost reads in it
// (plugins/js).
const openCodeDir = ".opencode"

var openCodeFolders = []string{"tool", "tools"}

// lockFile is the plugin lock at the worktree root (plugins/pkg.LockFile;
// not imported, to keep this package light).
const lockFile = "toolhost.lock"

// Entry is one file of the project's trust-relevant content.
type Entry struct {
	// Rel is the path relative to the worktree, with slashes.
	Rel string `json:"path"`
	// Kind is "file", "link" (a link inside the project) or "link-out"
	// (a link leading out of the project, or nowhere); a link's target's
	// content is hashed as the loaders would read it, a dangling link's
	// text alone. A link to a fifo or device adds its type ("link-out
	// p---------") and is not opened.
	Kind string `json:"kind"`
	// Link is a link's text.
	Link string `json:"link,omitempty"`
	// Size is the content's size; SHA256 its hex digest (of the link text
	// for a dangling link or a folder).
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Manifest is a project's trust-relevant content.
type Manifest struct {
	Worktree string
	Entries  []Entry
	// Digest is "sha256:" and the hex digest over every entry's path, kind,
	// link and content digest, in path order; "" when there is nothing.
	Digest string
	// configFiles are the project's config files when scanned
	// (config.ProjectFiles), for SameContent.
	configFiles []string
}

// Empty reports a project with no content that needs trust.
func (m *Manifest) Empty() bool { return len(m.Entries) == 0 }

// ErrTooLarge is returned for a project past MaxFiles or MaxBytes.
var ErrTooLarge = errors.New("project content too large to hash")

// Scan lists and digests the project's trust-relevant content: the files
// config.ProjectFiles names, the tool and plugin folders of
// config.ProjectDirs, the .opencode tool folders from the worktree down to
// the working directory, and toolhost.lock.
func Scan(o config.DirOptions) (*Manifest, error) {
	o = withDefaults(o)
	s := &scanner{root: o.Worktree}
	if real, err := filepath.EvalSymlinks(o.Worktree); err == nil {
		s.realRoot = real
	} else {
		s.realRoot = o.Worktree
	}
	var paths []string
	configFiles := config.ProjectFiles(o)
	paths = append(paths, configFiles...)
	for _, d := range config.ProjectDirs(o) {
		for _, f := range toolFolders {
			paths = append(paths, filepath.Join(d, f))
		}
	}
	for _, d := range config.Chain(o.Worktree, o.Directory) {
		for _, f := range openCodeFolders {
			paths = append(paths, filepath.Join(d, openCodeDir, f))
		}
	}
	paths = append(paths, filepath.Join(o.Worktree, lockFile))
	for _, p := range paths {
		if err := s.add(p, 0); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(s.entries, func(a, b Entry) int { return strings.Compare(a.Rel, b.Rel) })
	s.entries = slices.CompactFunc(s.entries, func(a, b Entry) bool { return a.Rel == b.Rel })
	m := &Manifest{Worktree: o.Worktree, Entries: s.entries, configFiles: configFiles}
	if len(m.Entries) > 0 {
		h := sha256.New()
		for _, e := range m.Entries {
			fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", e.Rel, e.Kind, e.Link, e.SHA256)
		}
		m.Digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	return m, nil
}

func withDefaults(o config.DirOptions) config.DirOptions {
	if o.Directory == "" {
		o.Directory, _ = os.Getwd()
	}
	o.Directory, _ = filepath.Abs(o.Directory)
	if o.Worktree == "" {
		o.Worktree = config.FindWorktree(o.Directory)
	}
	o.Worktree, _ = filepath.Abs(o.Worktree)
	return o
}

type scanner struct {
	root, realRoot string
	entries        []Entry
	bytes          int64
}

// add records path (a file, a folder walked whole, or a link) when it
// exists.
func (s *scanner) add(path string, depth int) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("trust: %w; fix its permissions or remove it", err)
	}
	if depth > maxDepth {
		return fmt.Errorf("trust: %s: folders nested over %d deep (a link loop?): %w", path, maxDepth, ErrTooLarge)
	}
	rel := s.rel(path)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		link, err := os.Readlink(path)
		if err != nil {
			return fmt.Errorf("trust: %w", err)
		}
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			// Dangling: its text is all the project holds. Once it
			// leads somewhere its content counts, and the digest changes.
			sum := sha256.Sum256([]byte(link))
			return s.push(Entry{Rel: rel, Kind: "link-out", Link: link, SHA256: hex.EncodeToString(sum[:])})
		}
		kind := "link"
		if !inside(s.realRoot, target) {
			// The loaders follow a link out of the project as they
			// follow one inside it, so what it leads to is hashed too:
			// a module or tool folder changed behind a trusted link
			// needs trust again.
			kind = "link-out"
		}
		tfi, err := os.Stat(target)
		if err != nil {
			return fmt.Errorf("trust: %w", err)
		}
		switch {
		case tfi.IsDir():
			sum := sha256.Sum256([]byte(link))
			if err := s.push(Entry{Rel: rel, Kind: kind, Link: link, SHA256: hex.EncodeToString(sum[:])}); err != nil {
				return err
			}
			return s.dir(path, depth)
		case !tfi.Mode().IsRegular():
			// A fifo or device: never opened (a fifo blocks the scan),
			// recorded by type.
			return s.push(Entry{Rel: rel, Kind: kind + " " + tfi.Mode().Type().String(), Link: link})
		}
		e, err := s.file(target, rel)
		if err != nil {
			return err
		}
		e.Kind, e.Link = kind, link
		return s.push(e)
	case fi.IsDir():
		return s.dir(path, depth)
	case fi.Mode().IsRegular():
		e, err := s.file(path, rel)
		if err != nil {
			return err
		}
		return s.push(e)
	default:
		// A fifo or device would block or mislead a loader; it is
		// recorded by name so adding one still changes the digest.
		return s.push(Entry{Rel: rel, Kind: fi.Mode().Type().String()})
	}
}

func (s *scanner) dir(path string, depth int) error {
	ents, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("trust: %w; fix its permissions or remove it", err)
	}
	for _, e := range ents {
		if err := s.add(filepath.Join(path, e.Name()), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (s *scanner) file(path, rel string) (Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return Entry{}, fmt.Errorf("trust: %w; fix its permissions or remove it", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxBytes-s.bytes+1))
	if err != nil {
		return Entry{}, fmt.Errorf("trust: read %s: %w", path, err)
	}
	s.bytes += n
	if s.bytes > MaxBytes {
		return Entry{}, fmt.Errorf("trust: the project's config and tool files hold over %d MiB: %w; move what is not config out of .toolhost/ and .opencode/", MaxBytes>>20, ErrTooLarge)
	}
	return Entry{Rel: rel, Kind: "file", Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

func (s *scanner) push(e Entry) error {
	if len(s.entries) >= MaxFiles {
		return fmt.Errorf("trust: the project's config and tool folders hold over %d files: %w; move what is not config out of .toolhost/ and .opencode/", MaxFiles, ErrTooLarge)
	}
	s.entries = append(s.entries, e)
	return nil
}

func (s *scanner) rel(path string) string {
	r, err := filepath.Rel(s.root, path)
	if err != nil || !inside(s.root, path) {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(r)
}

// inside reports whether path is root or below it.
func inside(root, path string) bool {
	r, err := filepath.Rel(root, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}
