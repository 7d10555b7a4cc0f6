// Package sessiontest checks that a session.Store keeps the contract
// session.Store documents, as testing/fstest checks an fs.FS and
// log/slog/slogtest a handler. Every Store — in memory, bbolt, and any
// shared store written later — runs Run in its tests; a store shared
// between processes or machines also runs RunShared.
//
// The suite is strict where a weaker store would lose state silently: lost
// updates under contention, a failed or panicking Update that half-applies,
// keys that collide after escaping (the corpus in odd_keys.txt and
// odd_ids.txt), values shared with the caller, work done on a cancelled
// context or after Close.
//
// Files over 500 lines, and why they stay whole: sessiontest.go is one
// suite, each check a short function, and a reader comparing a store
// against the contract reads them in order.
//
// A new store's test is three lines:
//
//	func TestPostgresKeepsTheStoreContract(t *testing.T) {
//		sessiontest.Run(t, func(t *testing.T) session.Store { return newTestStore(t) })
//	}
package sessiontest

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime/session"
)

// Counts of the concurrency tests.
const (
	goroutines    = 32
	perGoroutine  = 8
	largeValueLen = 1 << 20
)

// Run checks the Store contract on stores made by newStore, which must
// return a new, empty store for each call (registering its own clean-up
// with t.Cleanup if it needs any). The suite closes every store it gets.
func Run(t *testing.T, newStore func(t *testing.T) session.Store) {
	t.Helper()
	open := func(t *testing.T) session.Store {
		t.Helper()
		s := newStore(t)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	for _, c := range contract {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t, open(t))
		})
	}
}

// RunShared checks that two handles on the same backing store — two
// processes on one bbolt file, two machines on one database — see each
// other's writes and serialize their updates. newPair returns two new
// handles on one new, empty backing store; the suite closes both.
func RunShared(t *testing.T, newPair func(t *testing.T) (a, b session.Store)) {
	t.Helper()
	for _, c := range shared {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, b := newPair(t)
			t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
			c.test(t, a, b)
		})
	}
}

var contract = []struct {
	name string
	test func(t *testing.T, s session.Store)
}{
	{"a value put is read back and a second put replaces it", testRoundTrip},
	{"missing sessions, namespaces and keys read as absent", testMissing},
	{"empty session ids and namespaces are refused", testEmptyIDs},
	{"odd keys round trip and list in byte order", testOddKeys},
	{"odd session ids and namespaces are kept apart", testOddIDs},
	{"sessions and namespaces do not see each other's keys", testIsolation},
	{"an empty value exists and differs from a deleted key", testEmptyValue},
	{"Update sees the old value and whether it exists", testUpdateSeesOld},
	{"32 goroutines incrementing one counter lose no update", testCounter},
	{"goroutines using different sessions at once do not interfere", testParallelSessions},
	{"a failing Update changes nothing", testFailingUpdate},
	{"a panicking Update changes nothing and the store stays usable", testPanickingUpdate},
	{"values are copies, not shared with the caller", testCopies},
	{"a cancelled context is refused and changes nothing", testCancelled},
	{"a context cancelled while Update runs rolls it back", testCancelledDuringUpdate},
	{"1 MiB values round trip", testLargeValues},
	{"deleting a session removes all its namespaces and nothing else", testDeleteSession},
	{"after Close every method fails with ErrClosed and Close is harmless", testClose},
}

var shared = []struct {
	name string
	test func(t *testing.T, a, b session.Store)
}{
	{"a write through one handle is read through the other", testSharedWrite},
	{"updates through both handles lose nothing", testSharedCounter},
	{"a session deleted through one handle is gone through the other", testSharedDeleteSession},
	{"closing one handle leaves the other working", testSharedClose},
}

//go:embed odd_keys.txt
var oddKeysFile string

//go:embed odd_ids.txt
var oddIDsFile string

// corpus decodes a file of Go-quoted strings, one per line.
func corpus(t *testing.T, name, file string) []string {
	t.Helper()
	var out []string
	for i, line := range strings.Split(file, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", name, i+1, err)
		}
		if slices.Contains(out, s) {
			t.Fatalf("%s:%d: %q twice", name, i+1, s)
		}
		out = append(out, s)
	}
	return out
}

func put(t *testing.T, s session.Store, sid, ns, key, value string) {
	t.Helper()
	if err := session.Put(t.Context(), s, sid, ns, key, []byte(value)); err != nil {
		t.Fatalf("put %q/%q/%q: %v", sid, ns, key, err)
	}
}

// want checks the value under key; a nil want means absent.
func want(t *testing.T, s session.Store, sid, ns, key string, want *string) {
	t.Helper()
	v, ok, err := s.Get(t.Context(), sid, ns, key)
	switch {
	case err != nil:
		t.Errorf("get %q/%q/%q: %v", sid, ns, key, err)
	case want == nil && ok:
		t.Errorf("get %q/%q/%q = %q, want absent", sid, ns, key, v)
	case want == nil && v != nil:
		t.Errorf("get %q/%q/%q: absent but value %q, want nil", sid, ns, key, v)
	case want != nil && !ok:
		t.Errorf("get %q/%q/%q: absent, want %q", sid, ns, key, *want)
	case want != nil && string(v) != *want:
		t.Errorf("get %q/%q/%q = %q, want %q", sid, ns, key, v, *want)
	}
}

func ptr(s string) *string { return &s }

// list returns a namespace's entries, failing the test on error.
func list(t *testing.T, s session.Store, sid, ns string) []session.KV {
	t.Helper()
	kvs, err := s.List(t.Context(), sid, ns)
	if err != nil {
		t.Fatalf("list %q/%q: %v", sid, ns, err)
	}
	return kvs
}

func render(kvs []session.KV) string {
	var b strings.Builder
	for _, kv := range kvs {
		fmt.Fprintf(&b, "%q=%q ", kv.Key, kv.Value)
	}
	return strings.TrimSpace(b.String())
}

func testRoundTrip(t *testing.T, s session.Store) {
	put(t, s, "s", "n", "k", "one")
	want(t, s, "s", "n", "k", ptr("one"))
	put(t, s, "s", "n", "k", "two")
	want(t, s, "s", "n", "k", ptr("two"))
	if err := session.Delete(t.Context(), s, "s", "n", "k"); err != nil {
		t.Fatal(err)
	}
	want(t, s, "s", "n", "k", nil)
	if kvs := list(t, s, "s", "n"); len(kvs) != 0 {
		t.Errorf("after delete, list = %s", render(kvs))
	}
}

func testMissing(t *testing.T, s session.Store) {
	ctx := t.Context()
	want(t, s, "nobody", "n", "k", nil)
	put(t, s, "s", "n", "k", "v")
	want(t, s, "s", "other", "k", nil)
	want(t, s, "s", "n", "other", nil)
	want(t, s, "nobody", "n", "k", nil)
	if kvs := list(t, s, "nobody", "n"); len(kvs) != 0 {
		t.Errorf("list of a missing session = %s", render(kvs))
	}
	if kvs := list(t, s, "s", "other"); len(kvs) != 0 {
		t.Errorf("list of a missing namespace = %s", render(kvs))
	}
	if err := session.Delete(ctx, s, "s", "n", "other"); err != nil {
		t.Errorf("deleting a missing key: %v", err)
	}
	if err := session.Delete(ctx, s, "nobody", "n", "k"); err != nil {
		t.Errorf("deleting a key of a missing session: %v", err)
	}
	if err := s.DeleteSession(ctx, "nobody"); err != nil {
		t.Errorf("deleting a missing session: %v", err)
	}
	want(t, s, "s", "n", "k", ptr("v"))
}

func testEmptyIDs(t *testing.T, s session.Store) {
	ctx := t.Context()
	for _, id := range []struct{ sid, ns string }{{"", "n"}, {"s", ""}, {"", ""}} {
		if _, _, err := s.Get(ctx, id.sid, id.ns, "k"); err == nil {
			t.Errorf("Get(%q, %q) succeeded", id.sid, id.ns)
		}
		called := false
		err := s.Update(ctx, id.sid, id.ns, "k", func([]byte, bool) ([]byte, error) { called = true; return []byte("v"), nil })
		if err == nil {
			t.Errorf("Update(%q, %q) succeeded", id.sid, id.ns)
		}
		if called {
			t.Errorf("Update(%q, %q) called fn", id.sid, id.ns)
		}
		if _, err := s.List(ctx, id.sid, id.ns); err == nil {
			t.Errorf("List(%q, %q) succeeded", id.sid, id.ns)
		}
	}
	if err := s.DeleteSession(ctx, ""); err == nil {
		t.Error(`DeleteSession("") succeeded`)
	}
	// Nothing may have been stored under some stand-in name.
	for _, sid := range []string{"s", "default", "-", " ", "\x00"} {
		for _, ns := range []string{"n", "default", "-", " ", "\x00"} {
			if kvs := list(t, s, sid, ns); len(kvs) != 0 {
				t.Errorf("refused writes landed in %q/%q: %s", sid, ns, render(kvs))
			}
		}
	}
}

func testOddKeys(t *testing.T, s session.Store) {
	keys := corpus(t, "odd_keys.txt", oddKeysFile)
	keys = append(keys, strings.Repeat("k", 1024), strings.Repeat("\x00", 64), strings.Repeat("/", 300))
	value := func(k string) string { return "v" + strconv.Quote(k) }
	for _, k := range keys {
		put(t, s, "s", "n", k, value(k))
	}
	for _, k := range keys {
		want(t, s, "s", "n", k, ptr(value(k)))
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted) // byte order
	var expect []session.KV
	for _, k := range sorted {
		expect = append(expect, session.KV{Key: k, Value: []byte(value(k))})
	}
	if got := list(t, s, "s", "n"); render(got) != render(expect) {
		t.Errorf("list =\n%s\nwant\n%s", render(got), render(expect))
	}
	for _, k := range keys {
		if err := session.Delete(t.Context(), s, "s", "n", k); err != nil {
			t.Errorf("delete %q: %v", k, err)
		}
	}
	if kvs := list(t, s, "s", "n"); len(kvs) != 0 {
		t.Errorf("after deleting every key, list = %s", render(kvs))
	}
}

func testOddIDs(t *testing.T, s session.Store) {
	ids := corpus(t, "odd_ids.txt", oddIDsFile)
	for _, id := range ids {
		put(t, s, id, "n", "k", "session "+strconv.Quote(id))
		put(t, s, "s", id, "k", "namespace "+strconv.Quote(id))
	}
	for _, id := range ids {
		want(t, s, id, "n", "k", ptr("session "+strconv.Quote(id)))
		want(t, s, "s", id, "k", ptr("namespace "+strconv.Quote(id)))
		if kvs := list(t, s, id, "n"); len(kvs) != 1 {
			t.Errorf("list %q/n = %s, want one key", id, render(kvs))
		}
	}
	for _, id := range ids {
		if id == "s" {
			continue
		}
		if err := s.DeleteSession(t.Context(), id); err != nil {
			t.Fatalf("delete session %q: %v", id, err)
		}
		want(t, s, id, "n", "k", nil)
		want(t, s, "s", id, "k", ptr("namespace "+strconv.Quote(id)))
	}
}

// collisions are triples a store that joins or escapes names carelessly
// maps to the same place.
var collisions = [][3]string{
	{"a", "b", "c"},
	{"a", "b/c", "d"},
	{"a/b", "c", "d"},
	{"a", "b", "c/d"},
	{"a", "b/c/d", ""},
	{"a/b/c", "d", ""},
	{"a:b", "c", "d"},
	{"a", "b:c", "d"},
	{"a\x00b", "c", "d"},
	{"a", "b\x00c", "d"},
	{"a", "b", "c\x00d"},
	{"ab", "c", "d"},
	{"a", "bc", "d"},
	{"a", "b", "cd"},
	{"a", "a", "a"},
	{"b", "a", "c"},
}

func testIsolation(t *testing.T, s session.Store) {
	value := func(c [3]string) string { return fmt.Sprintf("%q", c) }
	for _, c := range collisions {
		put(t, s, c[0], c[1], c[2], value(c))
	}
	for _, c := range collisions {
		want(t, s, c[0], c[1], c[2], ptr(value(c)))
		var expect []string
		for _, d := range collisions {
			if d[0] == c[0] && d[1] == c[1] {
				expect = append(expect, d[2])
			}
		}
		slices.Sort(expect)
		var got []string
		for _, kv := range list(t, s, c[0], c[1]) {
			got = append(got, kv.Key)
		}
		if !slices.Equal(got, expect) {
			t.Errorf("list %q/%q = %q, want %q", c[0], c[1], got, expect)
		}
	}
	if err := s.DeleteSession(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	for _, c := range collisions {
		if c[0] == "a" {
			want(t, s, c[0], c[1], c[2], nil)
		} else {
			want(t, s, c[0], c[1], c[2], ptr(value(c)))
		}
	}
}

func testEmptyValue(t *testing.T, s session.Store) {
	ctx := t.Context()
	if err := s.Update(ctx, "s", "n", "k", func([]byte, bool) ([]byte, error) { return []byte{}, nil }); err != nil {
		t.Fatal(err)
	}
	want(t, s, "s", "n", "k", ptr(""))
	if err := session.Put(ctx, s, "s", "n", "nil", nil); err != nil {
		t.Fatal(err)
	}
	want(t, s, "s", "n", "nil", ptr(""))
	if kvs := list(t, s, "s", "n"); len(kvs) != 2 || kvs[0].Value == nil || len(kvs[0].Value) != 0 {
		t.Errorf("list = %s, want two empty values", render(kvs))
	}
	var sawExists bool
	if err := s.Update(ctx, "s", "n", "k", func(old []byte, exists bool) ([]byte, error) {
		sawExists = exists && old != nil && len(old) == 0
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !sawExists {
		t.Error("Update did not see the empty value as an existing, empty, non-nil slice")
	}
	want(t, s, "s", "n", "k", nil)
	// Deleting what is not there stores nothing either.
	if err := s.Update(ctx, "s", "n2", "k", func([]byte, bool) ([]byte, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if kvs := list(t, s, "s", "n2"); len(kvs) != 0 {
		t.Errorf("a nil Update stored %s", render(kvs))
	}
}

func testUpdateSeesOld(t *testing.T, s session.Store) {
	ctx := t.Context()
	var seen []string
	record := func(next string) func([]byte, bool) ([]byte, error) {
		return func(old []byte, exists bool) ([]byte, error) {
			seen = append(seen, fmt.Sprintf("%q/%v", old, exists))
			return []byte(next), nil
		}
	}
	for _, next := range []string{"a", "b"} {
		if err := s.Update(ctx, "s", "n", "k", record(next)); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(seen, " "); got != `""/false "a"/true` {
		t.Errorf("fn saw %s, want \"\"/false \"a\"/true", got)
	}
	want(t, s, "s", "n", "k", ptr("b"))
}

// increment adds one to the decimal counter under key.
func increment(ctx context.Context, s session.Store, sid, key string) error {
	return s.Update(ctx, sid, "counter", key, func(old []byte, exists bool) ([]byte, error) {
		n := 0
		if exists {
			var err error
			if n, err = strconv.Atoi(string(old)); err != nil {
				return nil, fmt.Errorf("counter holds %q: %w", old, err)
			}
		}
		return []byte(strconv.Itoa(n + 1)), nil
	})
}

func testCounter(t *testing.T, s session.Store) {
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*perGoroutine)
	for range goroutines {
		wg.Go(func() {
			for range perGoroutine {
				errs <- increment(t.Context(), s, "s", "count")
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	want(t, s, "s", "counter", "count", ptr(strconv.Itoa(goroutines*perGoroutine)))
}

func testParallelSessions(t *testing.T, s session.Store) {
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*perGoroutine*3)
	for g := range goroutines {
		sid := fmt.Sprintf("s%d", g%4)
		key := fmt.Sprintf("k%d", g)
		wg.Go(func() {
			for i := range perGoroutine {
				errs <- session.Put(t.Context(), s, sid, "n", key, []byte(strconv.Itoa(i)))
				_, _, err := s.Get(t.Context(), sid, "n", key)
				errs <- err
				_, err = s.List(t.Context(), sid, "n")
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for g := range goroutines {
		want(t, s, fmt.Sprintf("s%d", g%4), "n", fmt.Sprintf("k%d", g), ptr(strconv.Itoa(perGoroutine-1)))
	}
	for i := range 4 {
		if kvs := list(t, s, fmt.Sprintf("s%d", i), "n"); len(kvs) != goroutines/4 {
			t.Errorf("session s%d has %d keys, want %d", i, len(kvs), goroutines/4)
		}
	}
}

var errBoom = errors.New("boom")

func testFailingUpdate(t *testing.T, s session.Store) {
	ctx := t.Context()
	put(t, s, "s", "n", "k", "kept")
	err := s.Update(ctx, "s", "n", "k", func(old []byte, _ bool) ([]byte, error) {
		copy(old, "XXXX") // scribbling on the copy must not reach the store
		return []byte("lost"), errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Errorf("Update returned %v, want fn's error", err)
	}
	want(t, s, "s", "n", "k", ptr("kept"))
	err = s.Update(ctx, "s", "n", "new", func([]byte, bool) ([]byte, error) { return []byte("lost"), errBoom })
	if !errors.Is(err, errBoom) {
		t.Errorf("Update of a new key returned %v, want fn's error", err)
	}
	want(t, s, "s", "n", "new", nil)
	if err := s.Update(ctx, "s", "n", "k", func([]byte, bool) ([]byte, error) { return nil, errBoom }); !errors.Is(err, errBoom) {
		t.Errorf("failing delete returned %v", err)
	}
	want(t, s, "s", "n", "k", ptr("kept"))
}

func testPanickingUpdate(t *testing.T, s session.Store) {
	put(t, s, "s", "n", "k", "kept")
	func() {
		defer func() {
			if r := recover(); r != errBoom {
				t.Errorf("recovered %v, want the panic of fn", r)
			}
		}()
		_ = s.Update(t.Context(), "s", "n", "k", func([]byte, bool) ([]byte, error) { panic(errBoom) })
	}()
	want(t, s, "s", "n", "k", ptr("kept"))
	// The store is not left locked.
	put(t, s, "s", "n", "k", "after")
	want(t, s, "s", "n", "k", ptr("after"))
}

func testCopies(t *testing.T, s session.Store) {
	ctx := t.Context()
	in := []byte("original")
	if err := session.Put(ctx, s, "s", "n", "k", in); err != nil {
		t.Fatal(err)
	}
	copy(in, "CHANGED!")
	want(t, s, "s", "n", "k", ptr("original"))

	out, _, err := s.Get(ctx, "s", "n", "k")
	if err != nil {
		t.Fatal(err)
	}
	copy(out, "CHANGED!")
	want(t, s, "s", "n", "k", ptr("original"))

	kvs := list(t, s, "s", "n")
	copy(kvs[0].Value, "CHANGED!")
	want(t, s, "s", "n", "k", ptr("original"))

	var handed []byte
	if err := s.Update(ctx, "s", "n", "k", func(old []byte, _ bool) ([]byte, error) {
		copy(old, "CHANGED!")
		handed = []byte("updated!")
		return handed, nil
	}); err != nil {
		t.Fatal(err)
	}
	copy(handed, "CHANGED!")
	want(t, s, "s", "n", "k", ptr("updated!"))
}

func testCancelled(t *testing.T, s session.Store) {
	put(t, s, "s", "n", "k", "kept")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	check := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s on a cancelled context: %v, want context.Canceled", op, err)
		}
	}
	_, _, err := s.Get(ctx, "s", "n", "k")
	check("Get", err)
	called := false
	check("Update", s.Update(ctx, "s", "n", "k", func([]byte, bool) ([]byte, error) { called = true; return []byte("lost"), nil }))
	check("Update of a new key", s.Update(ctx, "s", "n", "new", func([]byte, bool) ([]byte, error) { called = true; return []byte("lost"), nil }))
	check("Delete", session.Delete(ctx, s, "s", "n", "k"))
	_, err = s.List(ctx, "s", "n")
	check("List", err)
	check("DeleteSession", s.DeleteSession(ctx, "s"))
	if called {
		t.Error("Update called fn on a cancelled context")
	}
	want(t, s, "s", "n", "k", ptr("kept"))
	want(t, s, "s", "n", "new", nil)
}

func testCancelledDuringUpdate(t *testing.T, s session.Store) {
	put(t, s, "s", "n", "k", "kept")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := s.Update(ctx, "s", "n", "k", func([]byte, bool) ([]byte, error) {
		cancel()
		return []byte("lost"), nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Update cancelled in fn returned %v, want context.Canceled", err)
	}
	want(t, s, "s", "n", "k", ptr("kept"))
}

func testLargeValues(t *testing.T, s session.Store) {
	large := make([]byte, largeValueLen)
	for i := range large {
		large[i] = byte(i*7 + i>>8) // not all alike, NUL and 0xff included
	}
	if err := session.Put(t.Context(), s, "s", "n", "big", large); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Get(t.Context(), "s", "n", "big")
	if err != nil || !ok || !bytes.Equal(got, large) {
		t.Fatalf("get: %d bytes, ok=%v, err=%v; want the %d bytes put", len(got), ok, err, len(large))
	}
	if err := s.Update(t.Context(), "s", "n", "big", func(old []byte, _ bool) ([]byte, error) {
		if !bytes.Equal(old, large) {
			return nil, fmt.Errorf("fn saw %d bytes, not the value put", len(old))
		}
		return append(old, old...), nil
	}); err != nil {
		t.Fatal(err)
	}
	kvs := list(t, s, "s", "n")
	if len(kvs) != 1 || !bytes.Equal(kvs[0].Value, append(slices.Clone(large), large...)) {
		t.Fatalf("list after doubling: %d entries", len(kvs))
	}
}

func testDeleteSession(t *testing.T, s session.Store) {
	ctx := t.Context()
	for _, ns := range []string{"permission", "todo", "wasm:x"} {
		put(t, s, "gone", ns, "k", ns)
		put(t, s, "stays", ns, "k", ns)
	}
	put(t, s, "gone/child", "todo", "k", "child")
	if err := s.DeleteSession(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"permission", "todo", "wasm:x"} {
		want(t, s, "gone", ns, "k", nil)
		if kvs := list(t, s, "gone", ns); len(kvs) != 0 {
			t.Errorf("deleted session still lists %s in %s", render(kvs), ns)
		}
		want(t, s, "stays", ns, "k", ptr(ns))
	}
	want(t, s, "gone/child", "todo", "k", ptr("child"))
	// The id can be used again.
	put(t, s, "gone", "todo", "k", "again")
	want(t, s, "gone", "todo", "k", ptr("again"))
	want(t, s, "gone", "permission", "k", nil)
}

func testClose(t *testing.T, s session.Store) {
	ctx := t.Context()
	put(t, s, "s", "n", "k", "v")
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	check := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, session.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", op, err)
		}
	}
	_, _, err := s.Get(ctx, "s", "n", "k")
	check("Get", err)
	called := false
	check("Update", s.Update(ctx, "s", "n", "k", func([]byte, bool) ([]byte, error) { called = true; return []byte("x"), nil }))
	_, err = s.List(ctx, "s", "n")
	check("List", err)
	check("DeleteSession", s.DeleteSession(ctx, "s"))
	if called {
		t.Error("Update called fn after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func testSharedWrite(t *testing.T, a, b session.Store) {
	put(t, a, "s", "n", "k", "from a")
	want(t, b, "s", "n", "k", ptr("from a"))
	put(t, b, "s", "n", "k", "from b")
	want(t, a, "s", "n", "k", ptr("from b"))
	if kvs := list(t, b, "s", "n"); render(kvs) != `"k"="from b"` {
		t.Errorf("list through b = %s", render(kvs))
	}
}

func testSharedCounter(t *testing.T, a, b session.Store) {
	var wg sync.WaitGroup
	const n = goroutines / 2
	errs := make(chan error, n*perGoroutine)
	for g := range n {
		s := a
		if g%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for range perGoroutine {
				errs <- increment(t.Context(), s, "s", "count")
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	want(t, a, "s", "counter", "count", ptr(strconv.Itoa(n*perGoroutine)))
	want(t, b, "s", "counter", "count", ptr(strconv.Itoa(n*perGoroutine)))
}

func testSharedDeleteSession(t *testing.T, a, b session.Store) {
	put(t, a, "s", "n", "k", "v")
	put(t, a, "t", "n", "k", "v")
	if err := b.DeleteSession(t.Context(), "s"); err != nil {
		t.Fatal(err)
	}
	want(t, a, "s", "n", "k", nil)
	want(t, a, "t", "n", "k", ptr("v"))
}

func testSharedClose(t *testing.T, a, b session.Store) {
	put(t, a, "s", "n", "k", "v")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	want(t, b, "s", "n", "k", ptr("v"))
	put(t, b, "s", "n", "k", "w")
	want(t, b, "s", "n", "k", ptr("w"))
}
