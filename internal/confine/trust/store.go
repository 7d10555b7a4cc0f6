package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// StoreFile is the trust store's name in the data directory.
const StoreFile = "trust.json"

// maxDigests is how many digests are remembered per worktree: the last
// one trusted, as direnv remembers one allow per path. Keeping older ones
// would let a command that restores an earlier version of the config (a
// server the person removed since, then trusted the removal) run it again
// without a look.
const maxDigests = 1

// Store is the trust store: worktree path → the digests a person trusted,
// in one JSON file written atomically (a temporary file renamed over it).
type Store struct {
	// Path is the file, usually DataDir/trust.json.
	Path string
}

// StoreIn returns the store in dataDir.
func StoreIn(dataDir string) Store { return Store{Path: filepath.Join(dataDir, StoreFile)} }

// Grant is one trusted digest.
type Grant struct {
	Digest string    `json:"digest"`
	At     time.Time `json:"at"`
	By     string    `json:"by,omitempty"`
}

type storeFile struct {
	Version  int                `json:"version"`
	Projects map[string][]Grant `json:"projects"`
}

const storeVersion = 1

// read returns the store's content; a missing file is an empty store. A
// file that does not parse is an error naming the fix: the caller then
// treats every project as untrusted.
func (s Store) read() (*storeFile, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return &storeFile{Version: storeVersion, Projects: map[string][]Grant{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trust store %s: %w; fix its permissions", s.Path, err)
	}
	var f storeFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil || f.Version != storeVersion {
		if err == nil {
			err = fmt.Errorf("version %d, want %d", f.Version, storeVersion)
		}
		return nil, fmt.Errorf("trust store %s is unreadable (%v): every project counts as untrusted; remove the file and run `toolhost trust` in each project again", s.Path, err)
	}
	if f.Projects == nil {
		f.Projects = map[string][]Grant{}
	}
	return &f, nil
}

// Trusted reports whether digest is trusted for worktree. An error means
// untrusted.
func (s Store) Trusted(worktree, digest string) (bool, error) {
	f, err := s.read()
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(f.Projects[worktree], func(g Grant) bool { return g.Digest == digest }), nil
}

// Grants returns what is stored for worktree.
func (s Store) Grants(worktree string) ([]Grant, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	return f.Projects[worktree], nil
}

// Trust records digest for worktree. A store that does not parse is not
// overwritten: the person removes it, knowing what is lost.
func (s Store) Trust(worktree, digest, by string) error {
	if digest == "" {
		return errors.New("trust: nothing to trust")
	}
	f, err := s.read()
	if err != nil {
		return err
	}
	gs := slices.DeleteFunc(f.Projects[worktree], func(g Grant) bool { return g.Digest == digest })
	gs = append(gs, Grant{Digest: digest, At: time.Now().UTC().Truncate(time.Second), By: by})
	if len(gs) > maxDigests {
		gs = gs[len(gs)-maxDigests:]
	}
	f.Projects[worktree] = gs
	return s.write(f)
}

// Revoke forgets every digest of worktree; it reports whether there was any.
func (s Store) Revoke(worktree string) (bool, error) {
	f, err := s.read()
	if err != nil {
		return false, err
	}
	if _, ok := f.Projects[worktree]; !ok {
		return false, nil
	}
	delete(f.Projects, worktree)
	return true, s.write(f)
}

// write replaces the file atomically: a reader sees the old store or the
// new one, never half of either.
func (s Store) write(f *storeFile) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write trust store: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".trust-*.json")
	if err != nil {
		return fmt.Errorf("write trust store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write trust store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write trust store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write trust store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		return fmt.Errorf("write trust store: %w", err)
	}
	return nil
}
