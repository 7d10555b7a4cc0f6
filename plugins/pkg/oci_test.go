package pkg

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime/config"
)

// TestOCIPackagesRoundTripThroughARealRegistry pushes to and pulls from
// the CNCF distribution registry on loopback: add by tag, lock, tamper
// with the cache, open offline, update with a capability increase, and
// signatures under require_signatures.
func TestOCIPackagesRoundTripThroughARealRegistry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	addr := startRegistry(t)
	ref := "oci://" + addr + "/acme/jira:1.0.0"
	dir := writePlugin(t, t.TempDir(), "jira", "1.0.0", wasm.Capabilities{AllowedHosts: []string{"jira.example"}}, fakeModule)
	archive := pack(t, dir)
	d1, err := Push(ctx, archive, ref, RegistryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := Push(ctx, archive, ref, RegistryOptions{}); err != nil || again != d1 {
		t.Fatalf("pushing the same archive again gave %s (%v), want the same digest %s", again, err, d1)
	}

	consent := &consentLog{answer: true}
	m := newManager(t, consent)
	e, err := m.Add(ctx, ref, false)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindOCI || e.Digest != d1 || e.Version != "1.0.0" || len(consent.requests()) != 1 {
		t.Fatalf("locked = %+v, consent = %v", e, consent.requests())
	}

	t.Run("the locked digest is what a later add fetches, even when the tag moved", func(t *testing.T) {
		m2 := *m
		m2.Cache = Cache{Dir: t.TempDir()}
		moved := pack(t, writePlugin(t, t.TempDir(), "jira", "1.0.0", wasm.Capabilities{AllowedHosts: []string{"other.example"}}, fakeModule))
		tag := "oci://" + addr + "/acme/jira:moving"
		if _, err := Push(ctx, archive, tag, RegistryOptions{}); err != nil {
			t.Fatal(err)
		}
		lock, _ := ReadLock(m.LockPath)
		lock.put(Locked{Name: "jira-moving", Version: "1.0.0", Ref: tag, Kind: KindOCI, Digest: d1})
		lock.Write(m2.LockPath + ".moving")
		m2.LockPath += ".moving"
		if _, err := Push(ctx, moved, tag, RegistryOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := m2.Add(ctx, tag, false)
		if err != nil || got.Digest != d1 {
			t.Fatalf("add = %+v, %v; want the locked digest", got, err)
		}
	})

	t.Run("a tampered cached layer is refused and the cache opens offline otherwise", func(t *testing.T) {
		m2 := *m
		m2.Cache = Cache{Dir: t.TempDir()}
		m2.Registry = RegistryOptions{PlainHTTP: func(string) bool { t.Error("the network was used"); return true }}
		if _, err := m2.Open(e); !errors.Is(err, ErrNotCached) {
			t.Fatalf("open with an empty cache: %v, want not cached", err)
		}
		m2.Registry = RegistryOptions{}
		if _, err := m2.InstallLocked(ctx); err != nil {
			t.Fatal(err)
		}
		src, err := m2.Open(e)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(src.Modules[0].Path, []byte("\x00asm evil"), 0o644)
		if r, err := m2.Verify(); err != nil || len(r.Problems) != 1 || !errors.Is(r.Problems[0], ErrDigestMismatch) {
			t.Fatalf("verify = %+v, %v; want the layer refused", r, err)
		}
		layer := src.Modules[0].Path
		r, err := m2.Repair(ctx)
		if err != nil || !r.OK() || len(r.Restored) != 1 || r.Restored[0].File != layer || r.Restored[0].From != ref {
			t.Fatalf("repair = %+v, %v; want the layer fetched again", r, err)
		}
		if b, _ := os.ReadFile(layer); string(b) != string(fakeModule) {
			t.Fatalf("layer after repair = %q", b)
		}
		os.WriteFile(m2.Cache.Path(e.Digest), []byte("{}"), 0o644)
		if _, err := m2.Open(e); !errors.Is(err, ErrDigestMismatch) || !strings.Contains(err.Error(), e.Digest) {
			t.Fatalf("open = %v, want the tampered manifest refused with both digests", err)
		}
	})

	t.Run("an update with more capabilities asks for consent", func(t *testing.T) {
		v2 := pack(t, writePlugin(t, t.TempDir(), "jira", "1.1.0", wasm.Capabilities{AllowedHosts: []string{"jira.example"}, AllowedPaths: map[string]string{"ro:.": "/project"}}, fakeModule))
		d2, err := Push(ctx, v2, ref, RegistryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		changes, err := m.Update(ctx, nil, false)
		if err != nil || len(changes) != 1 || !changes[0].Updated || changes[0].ToDigest != d2 {
			t.Fatalf("changes = %+v, %v", changes, err)
		}
		reqs := consent.requests()
		if last := reqs[len(reqs)-1]; !last.Update || strings.Join(last.Lines, "|") != "read access to . (seen as /project)" {
			t.Errorf("consent = %+v, want only the new path", last)
		}
	})

	t.Run("require_signatures refuses unsigned artifacts and accepts signed ones", func(t *testing.T) {
		keyDir := t.TempDir()
		pub, err := GenerateKey(keyDir+"/k.key", "")
		if err != nil {
			t.Fatal(err)
		}
		signedRef := "oci://" + addr + "/acme/signed:1.0.0"
		unsignedRef := "oci://" + addr + "/acme/unsigned:1.0.0"
		signedArchive := pack(t, writePlugin(t, t.TempDir(), "signed", "1.0.0", wasm.Capabilities{}, fakeModule))
		unsignedArchive := pack(t, writePlugin(t, t.TempDir(), "unsigned", "1.0.0", wasm.Capabilities{}, fakeModule))
		d, err := Push(ctx, signedArchive, signedRef, RegistryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Push(ctx, unsignedArchive, unsignedRef, RegistryOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := SignOCI(ctx, signedRef, keyDir+"/k.key", "", RegistryOptions{}); err != nil {
			t.Fatal(err)
		}
		m := newManager(t, nil)
		m.Trust = config.Trust{Keys: []string{pub}, RequireSignatures: true}
		if _, err := m.Add(ctx, unsignedRef, true); !errors.Is(err, ErrUnsigned) {
			t.Fatalf("unsigned: %v, want refused", err)
		}
		e, err := m.Add(ctx, signedRef, true)
		if err != nil || e.Digest != d || e.KeyID == "" || e.Signature == "" {
			t.Fatalf("signed: %+v, %v", e, err)
		}
		if _, err := m.Open(e); err != nil {
			t.Fatal(err)
		}
		// A lock whose signature was edited no longer opens.
		e.Signature = strings.Replace(e.Signature, e.Signature[len(e.Signature)/2:len(e.Signature)/2+4], "AAAA", 1)
		if _, err := m.Open(e); err == nil {
			t.Error("a lock entry with an altered signature was opened")
		}
		// Verify reports it; repair fetches the signature attached in the
		// registry again.
		lock, _ := ReadLock(m.LockPath)
		good := lock.Plugins[0].Signature
		lock.Plugins[0].Signature = e.Signature
		lock.Write(m.LockPath)
		r, err := m.Verify()
		if err != nil || len(r.Problems) != 1 || r.Problems[0].Kind != ProblemSignature || r.Problems[0].Got != Digest([]byte(e.Signature)) || r.Problems[0].Want != d {
			t.Fatalf("verify = %+v, %v; want the edited signature reported", r, err)
		}
		if r, err = m.Repair(ctx); err != nil || !r.OK() || len(r.Restored) != 1 || !strings.Contains(r.Restored[0].From, sigTag(d)) {
			t.Fatalf("repair = %+v, %v; want the signature fetched from the registry", r, err)
		}
		if lock, _ := ReadLock(m.LockPath); lock.Plugins[0].Signature != good {
			t.Error("the signature in the lock was not restored")
		}
	})
}
