package pkg

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/toolhost/toolhost/plugins/wasm"
)

// LockFile is the lock's name, at the project root beside toolhost.json.
const LockFile = "toolhost.lock"

// LockVersion is the lock file format version.
const LockVersion = 1

// Lock is toolhost.lock: what each plugin package resolved to and what
// was granted. It is meant to be committed, so every checkout of the
// project runs the same bytes with the same capabilities.
type Lock struct {
	Version int      `json:"version"`
	Plugins []Locked `json:"plugins"`
}

// Locked is one plugin in the lock.
type Locked struct {
	// Name and Version are the manifest's.
	Name    string `json:"name"`
	Version string `json:"version"`
	// Ref is the reference as written in the config ("plugin": [...]).
	Ref string `json:"ref"`
	// Kind is oci, https, dir or archive.
	Kind Kind `json:"kind"`
	// Digest is the sha256 of the archive, or the OCI manifest digest.
	Digest string `json:"digest"`
	// Size of the archive or OCI manifest, in bytes.
	Size int64 `json:"size"`
	// Tools are the tool ids the plugin provided when it was added.
	Tools []string `json:"tools,omitempty"`
	// Hooks are the hook exports it has.
	Hooks []string `json:"hooks,omitempty"`
	// Granted are the capabilities the person agreed to.
	Granted wasm.Capabilities `json:"granted"`
	// Signature is the minisign signature of the digested bytes, when the
	// package was signed, and KeyID the key that made it.
	Signature string `json:"signature,omitempty"`
	KeyID     string `json:"key_id,omitempty"`
}

// ReadLock reads a lock file; a missing file is an empty lock.
func ReadLock(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Lock{Version: LockVersion}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var l Lock
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s is not a valid lock file: %w; restore it from version control or delete it and add the plugins again", path, err)
	}
	if l.Version != LockVersion {
		return nil, fmt.Errorf("%s has version %d; this toolhost reads version %d", path, l.Version, LockVersion)
	}
	return &l, nil
}

// Write writes the lock, plugins sorted by name, so diffs stay small.
func (l *Lock) Write(path string) error {
	l.Version = LockVersion
	sort.Slice(l.Plugins, func(i, j int) bool { return l.Plugins[i].Name < l.Plugins[j].Name })
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(path, append(b, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ByRef returns the entry locked for a reference.
func (l *Lock) ByRef(ref string) (*Locked, bool) {
	for i := range l.Plugins {
		if l.Plugins[i].Ref == ref {
			return &l.Plugins[i], true
		}
	}
	return nil, false
}

// ByName returns the entry of a plugin name.
func (l *Lock) ByName(name string) (*Locked, bool) {
	for i := range l.Plugins {
		if l.Plugins[i].Name == name {
			return &l.Plugins[i], true
		}
	}
	return nil, false
}

// put adds or replaces the entry with e's reference.
func (l *Lock) put(e Locked) {
	for i := range l.Plugins {
		if l.Plugins[i].Ref == e.Ref {
			l.Plugins[i] = e
			return
		}
	}
	l.Plugins = append(l.Plugins, e)
}

// remove deletes the entry of a plugin name and returns it.
func (l *Lock) remove(name string) (Locked, bool) {
	for i, e := range l.Plugins {
		if e.Name == name {
			l.Plugins = append(l.Plugins[:i], l.Plugins[i+1:]...)
			return e, true
		}
	}
	return Locked{}, false
}
