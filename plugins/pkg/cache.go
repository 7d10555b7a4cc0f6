package pkg

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Cache is the content-addressed plugin cache: every blob (archive, OCI
// manifest, config, layer) at Dir/sha256/<hex>, archives unpacked at
// Dir/unpacked/<hex>/. Reading a blob re-hashes it, so a changed file is
// refused, never loaded.
type Cache struct {
	// Dir is the cache root; DefaultCacheDir gives the usual one.
	Dir string
}

// DefaultCacheDir is $XDG_CACHE_HOME/toolhost/plugins, else
// ~/.cache/toolhost/plugins.
func DefaultCacheDir(env func(string) string) string {
	if env == nil {
		env = os.Getenv
	}
	if d := env("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "toolhost", "plugins")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "toolhost", "plugins")
}

// ErrDigestMismatch is returned, wrapped with both digests, when bytes do
// not hash to the digest they are supposed to have.
var ErrDigestMismatch = errors.New("digest mismatch")

// ErrNotCached is returned when a locked blob is not in the cache.
var ErrNotCached = errors.New("not in the plugin cache")

// Digest returns "sha256:<hex>" of data.
func Digest(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

func hexOf(digest string) (string, error) {
	h, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(h) != 64 {
		return "", fmt.Errorf("digest %q is not sha256:<64 hex digits>", digest)
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", fmt.Errorf("digest %q is not sha256:<64 hex digits>", digest)
	}
	return h, nil
}

// Path is where the blob with digest lives.
func (c Cache) Path(digest string) string {
	h, _ := hexOf(digest)
	return filepath.Join(c.Dir, "sha256", h)
}

// Put stores data and returns its digest. When want is not empty, data
// must hash to it.
func (c Cache) Put(data []byte, want string) (string, error) {
	got := Digest(data)
	if want != "" && got != want {
		return "", mismatch(want, got)
	}
	p := c.Path(got)
	if _, _, err := inspectFile(p, got); err == nil {
		return got, nil
	} else if err := c.clearNonRegular(p, err); err != nil {
		return "", fmt.Errorf("write plugin cache: %w", err)
	}
	if err := writeAtomic(p, data); err != nil {
		return "", fmt.Errorf("write plugin cache: %w", err)
	}
	return got, nil
}

// Read returns the blob with digest, re-hashed: a blob changed in the
// cache is refused with both digests.
func (c Cache) Read(digest string) ([]byte, error) {
	if _, err := hexOf(digest); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(c.Path(digest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w; run `toolhost plugin add` to fetch the locked plugins", digest, ErrNotCached)
	}
	if err != nil {
		return nil, fmt.Errorf("read plugin cache: %w", err)
	}
	if got := Digest(data); got != digest {
		return nil, fmt.Errorf("cached blob %s: %w; delete it and run `toolhost plugin add` to fetch it again", c.Path(digest), mismatch(digest, got))
	}
	return data, nil
}

// mismatch names both digests.
func mismatch(want, got string) error {
	return fmt.Errorf("%w: toolhost.lock says %s, the bytes are %s", ErrDigestMismatch, want, got)
}

func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return errors.Join(werr, cerr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
