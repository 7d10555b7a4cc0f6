package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Session ids that carry their owner. An MCP session id minted by a fleet
// is "ms_<random>_<mac>": 128 random bits and an HMAC-SHA256, under a key
// every replica shares through the store, of the random part and the
// caller it was minted for. Any replica checks who may use an id without
// reading the store, and minting one writes nothing: a client of protocol
// 2026-07-28 that never sends the id back (the protocol has no session
// header; only some clients adopt it) leaves no row behind for each of its
// requests. Only a session whose initialize must be remembered (protocols
// before 2026-07-28) is stored (fleetRecord).

const (
	fleetKeyNS  = "key"  // the HMAC key of session ids
	fleetKeyKey = "hmac" // its key in fleetKeyNS
)

// fleetKey is the fleet's HMAC key, read (or made, by the first replica
// that needs it) once, and rewritten unchanged every keyTouch: its row is
// bookkeeping whose rows expire one by one (BookkeepingSessions), and a
// key swept while replicas run would be remade by the next one to start,
// whose ids the others would refuse.
type fleetKey struct {
	mu      sync.Mutex
	key     []byte
	touched time.Time
}

// keyTouch is how often a replica rewrites the key; far below any
// retention.
const keyTouch = 10 * time.Minute

func (f *fleet) hmacKey(ctx context.Context) ([]byte, error) {
	f.key.mu.Lock()
	defer f.key.mu.Unlock()
	if f.key.key != nil && time.Since(f.key.touched) < keyTouch {
		return f.key.key, nil
	}
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh)
	var key []byte
	err := f.store.Update(ctx, fleetStoreSession, fleetKeyNS, fleetKeyKey, func(old []byte, exists bool) ([]byte, error) {
		switch {
		case exists && len(old) == len(fresh):
			key = old // rewritten, so the row's time moves
		case f.key.key != nil:
			key = f.key.key // swept after all: put back, not remade
		default:
			key = fresh
		}
		return key, nil
	})
	if err != nil {
		if f.key.key != nil {
			f.key.touched = time.Now() // tried again after keyTouch
			return f.key.key, nil
		}
		return nil, fmt.Errorf("read the key of session ids: %w", err)
	}
	f.key.key, f.key.touched = key, time.Now()
	return key, nil
}

func sessionMAC(key []byte, random, caller string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(random))
	m.Write([]byte{0})
	m.Write([]byte(caller))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// mint makes a session id for caller.
func (f *fleet) mint(ctx context.Context, caller string) (string, error) {
	key, err := f.hmacKey(ctx)
	if err != nil {
		return "", err
	}
	random := rand.Text() // base32: no '_'
	return "ms_" + random + "_" + sessionMAC(key, random, caller), nil
}

// owns reports whether id was minted for caller.
func (f *fleet) owns(ctx context.Context, id, caller string) (bool, error) {
	rest, ok := strings.CutPrefix(id, "ms_")
	if !ok || len(rest) > 200 {
		return false, nil
	}
	random, mac, ok := strings.Cut(rest, "_")
	if !ok || random == "" {
		return false, nil
	}
	key, err := f.hmacKey(ctx)
	if err != nil {
		return false, err
	}
	return hmac.Equal([]byte(mac), []byte(sessionMAC(key, random, caller))), nil
}
