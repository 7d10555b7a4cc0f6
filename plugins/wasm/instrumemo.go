package wasm

import (
	"crypto/sha256"
	"sync"
)

// memoBudget bounds the bytes of instrumented code instrumentMemo keeps;
// each entry also counts entryOverhead, its key and bookkeeping, so that
// many small modules (or modules that fail) stay within it too.
const (
	memoBudget    = 64 << 20
	entryOverhead = 256
)

// instrumentMemo keeps what instrumentLoops made of the modules this
// process compiled, by content. A module is compiled once per limits
// group and again in every Engine that loads it (a host reloading a
// folder, a second host in one program): rewriting a Go-built module's
// code costs as much as wazero's validation of it, and the answer
// depends on the bytes alone. Entries go first in, first out, within
// memoBudget; a module larger than the budget is not kept.
var instrumentMemo = struct {
	mu    sync.Mutex
	byKey map[[sha256.Size]byte]memoEntry
	order [][sha256.Size]byte
	size  int
}{byKey: map[[sha256.Size]byte]memoEntry{}}

type memoEntry struct {
	code []byte // never written to: every compile reads the same bytes
	err  error
	size int // what it counts against memoBudget
}

// instrumentOnce is instrumentLoops(data) through instrumentMemo.
func instrumentOnce(data []byte) ([]byte, error) {
	key := sha256.Sum256(data)
	m := &instrumentMemo
	m.mu.Lock()
	e, ok := m.byKey[key]
	m.mu.Unlock()
	if ok {
		return e.code, e.err
	}
	code, _, err := instrumentLoops(data)
	n := len(code) + entryOverhead // an error's entry is the overhead alone
	if n > memoBudget {
		return code, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byKey[key]; ok {
		return code, err // made beside this one
	}
	for m.size+n > memoBudget && len(m.order) > 0 {
		old := m.order[0]
		m.order = m.order[1:]
		m.size -= m.byKey[old].size
		delete(m.byKey, old)
	}
	m.byKey[key] = memoEntry{code: code, err: err, size: n}
	m.order = append(m.order, key)
	m.size += n
	return code, err
}
