package wasm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
)

// fileIndex remembers the sha256 of module files by path, size and
// modification time (CacheDir/index.json), so a warm listing neither reads
// nor hashes 20 modules of 3 MB each. A file rewritten with the same size
// within the same nanosecond would be missed until it is called, when its
// sha256 is checked before compiling.
type fileIndex struct {
	path string // "" when there is no cache directory

	once    sync.Once
	mu      sync.Mutex
	entries map[string]indexEntry
	dirty   bool
}

type indexEntry struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"`
	Sum   string `json:"sha256"`
}

func (x *fileIndex) loadOnce() {
	x.once.Do(func() {
		x.entries = map[string]indexEntry{}
		if x.path == "" {
			return
		}
		if b, err := os.ReadFile(x.path); err == nil {
			json.Unmarshal(b, &x.entries)
		}
	})
}

func (x *fileIndex) lookup(path string, info fileInfo) (string, bool) {
	x.loadOnce()
	x.mu.Lock()
	defer x.mu.Unlock()
	e, ok := x.entries[path]
	if !ok || e.Size != info.size || e.MTime != info.mtime {
		return "", false
	}
	return e.Sum, true
}

func (x *fileIndex) store(path string, info fileInfo, sum string) {
	x.loadOnce()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.entries[path] = indexEntry{Size: info.size, MTime: info.mtime, Sum: sum}
	x.dirty = true
}

// flush writes the index if it changed; failing to is only slower later.
func (x *fileIndex) flush() {
	if x.path == "" {
		return
	}
	x.mu.Lock()
	if !x.dirty {
		x.mu.Unlock()
		return
	}
	b, _ := json.Marshal(x.entries)
	x.dirty = false
	x.mu.Unlock()
	os.MkdirAll(filepath.Dir(x.path), 0o755)
	tmp, err := os.CreateTemp(filepath.Dir(x.path), "index.*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), x.path) != nil {
		os.Remove(tmp.Name())
	}
}
