package pkg

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime/config"
)

func TestPackIsReproducible(t *testing.T) {
	t.Parallel()
	a := writePlugin(t, t.TempDir(), "jira", "1.0.0", wasm.Capabilities{AllowedHosts: []string{"jira.example"}}, fakeModule)
	b := writePlugin(t, t.TempDir(), "jira", "1.0.0", wasm.Capabilities{AllowedHosts: []string{"jira.example"}}, fakeModule)
	// Different times and an extra file that is not part of the plugin.
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(b, "jira.wasm"), old, old)
	os.WriteFile(filepath.Join(b, "notes.txt"), []byte("not packed"), 0o644)
	pa, pb := pack(t, a), pack(t, b)
	if !bytes.Equal(pa, pb) {
		t.Fatalf("packing the same plugin twice gave %s and %s", Digest(pa), Digest(pb))
	}
	ac, err := readArchive(pa)
	if err != nil {
		t.Fatal(err)
	}
	if len(ac.files) != 2 {
		t.Errorf("archive files = %d, want the manifest and the module only", len(ac.files))
	}
}

func TestLocalDirectoriesAndArchivesAreAddedLockedAndOpenedFromTheCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ref  func(t *testing.T, dir, base string) string
		kind Kind
	}{
		{"a directory by relative path", func(t *testing.T, dir, base string) string {
			rel, _ := filepath.Rel(base, dir)
			return "./" + rel
		}, KindDir},
		{"an archive by absolute path", func(t *testing.T, dir, base string) string {
			p := filepath.Join(t.TempDir(), "jira-1.0.0.tar.gz")
			os.WriteFile(p, pack(t, dir), 0o644)
			return p
		}, KindArchive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			consent := &consentLog{answer: true}
			m := newManager(t, consent)
			dir := writePlugin(t, filepath.Join(m.Base, "vendor", "jira"), "jira", "1.0.0", wasm.Capabilities{AllowedHosts: []string{"jira.example"}}, fakeModule)
			ref := tt.ref(t, dir, m.Base)
			e, err := m.Add(context.Background(), ref, false)
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != tt.kind || e.Name != "jira" || e.Version != "1.0.0" || e.Digest != Digest(pack(t, dir)) {
				t.Errorf("locked = %+v", e)
			}
			if reqs := consent.requests(); len(reqs) != 1 || !strings.Contains(strings.Join(reqs[0].Lines, "\n"), "network access to jira.example") {
				t.Errorf("consent requests = %+v, want one naming the host", reqs)
			}
			lock, err := ReadLock(m.LockPath)
			if err != nil || len(lock.Plugins) != 1 || lock.Plugins[0].Granted.AllowedHosts[0] != "jira.example" {
				t.Fatalf("lock = %+v, %v", lock, err)
			}
			// The source is gone: the host runs from the cache.
			os.RemoveAll(dir)
			src, err := m.Open(lock.Plugins[0])
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(src.Modules[0].Path)
			if err != nil || !bytes.Equal(got, fakeModule) || src.Granted.AllowedHosts[0] != "jira.example" {
				t.Errorf("opened %+v (%v)", src, err)
			}
		})
	}
}

func TestAddingWithoutConsentLocksNothing(t *testing.T) {
	t.Parallel()
	m := newManager(t, &consentLog{answer: false})
	dir := writePlugin(t, t.TempDir(), "jira", "1.0.0", wasm.Capabilities{AllowedPaths: map[string]string{".": "/p"}}, fakeModule)
	if _, err := m.Add(context.Background(), dir, false); !errors.Is(err, ErrConsentRefused) {
		t.Fatalf("err = %v, want consent refused", err)
	}
	m.Consent = nil
	if _, err := m.Add(context.Background(), dir, false); !errors.Is(err, ErrConsentRefused) || !strings.Contains(err.Error(), "--yes") {
		t.Fatalf("err = %v, want consent refused with the --yes remedy", err)
	}
	if lock, _ := ReadLock(m.LockPath); len(lock.Plugins) != 0 {
		t.Errorf("lock = %+v, want empty", lock)
	}
	if _, err := m.Add(context.Background(), dir, true); err != nil {
		t.Errorf("--yes: %v", err)
	}
}

// archiveServer serves plugin archives over TLS; tests swap the bytes.
type archiveServer struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte
}

func newArchiveServer(t *testing.T) *archiveServer {
	s := &archiveServer{files: map[string][]byte{}}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		b, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *archiveServer) put(path string, b []byte) {
	s.mu.Lock()
	s.files[path] = b
	s.mu.Unlock()
}

func TestHTTPSArchivesArePinnedByDigestAndRunOffline(t *testing.T) {
	t.Parallel()
	srv := newArchiveServer(t)
	consent := &consentLog{answer: true}
	m := newManager(t, consent)
	m.HTTPClient = srv.Client()
	v1 := pack(t, writePlugin(t, t.TempDir(), "jira", "1.0.0", wasm.Capabilities{AllowedHosts: []string{"jira.example"}}, fakeModule))
	srv.put("/jira.tar.gz", v1)
	ref := srv.URL + "/jira.tar.gz"

	e, err := m.Add(context.Background(), ref, false)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindHTTPS || e.Digest != Digest(v1) || e.Size != int64(len(v1)) {
		t.Fatalf("locked = %+v", e)
	}

	t.Run("a download whose digest differs from the lock is refused with both digests", func(t *testing.T) {
		other := pack(t, writePlugin(t, t.TempDir(), "jira", "1.0.1", wasm.Capabilities{}, fakeModule))
		srv.put("/jira.tar.gz", other)
		defer srv.put("/jira.tar.gz", v1)
		_, err := m.Add(context.Background(), ref, false)
		if !errors.Is(err, ErrDigestMismatch) || !strings.Contains(err.Error(), Digest(v1)) || !strings.Contains(err.Error(), Digest(other)) {
			t.Fatalf("err = %v, want a mismatch naming %s and %s", err, Digest(v1), Digest(other))
		}
	})

	t.Run("a tampered cached blob is refused with both digests", func(t *testing.T) {
		m2 := *m
		m2.Cache = Cache{Dir: t.TempDir()}
		if _, err := m2.InstallLocked(context.Background()); err != nil {
			t.Fatal(err)
		}
		p := m2.Cache.Path(e.Digest)
		b, _ := os.ReadFile(p)
		b[len(b)/2] ^= 0xff
		os.WriteFile(p, b, 0o644)
		_, err := m2.Open(e)
		if !errors.Is(err, ErrDigestMismatch) || !strings.Contains(err.Error(), e.Digest) || !strings.Contains(err.Error(), Digest(b)) {
			t.Fatalf("err = %v, want the tampered blob refused", err)
		}
		if r, err := m2.Verify(); err != nil || len(r.Problems) != 1 {
			t.Errorf("verify = %+v, %v; want one problem", r, err)
		}
	})

	t.Run("opening needs no network", func(t *testing.T) {
		m2 := *m
		m2.HTTPClient = &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
			t.Error("the network was used")
			return nil, errors.New("offline")
		})}
		if _, err := m2.Open(e); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("an update asking for more capabilities needs consent again", func(t *testing.T) {
		v2 := pack(t, writePlugin(t, t.TempDir(), "jira", "2.0.0", wasm.Capabilities{AllowedHosts: []string{"jira.example", "evil.example"}}, fakeModule))
		srv.put("/jira.tar.gz", v2)
		consent.answer = false
		changes, err := m.Update(context.Background(), nil, false)
		if err != nil || len(changes) != 1 || changes[0].Updated || !errors.Is(changes[0].Err, ErrConsentRefused) {
			t.Fatalf("changes = %+v, %v; want the update refused", changes, err)
		}
		if lock, _ := ReadLock(m.LockPath); lock.Plugins[0].Digest != Digest(v1) {
			t.Fatal("the lock moved without consent")
		}
		consent.answer = true
		changes, err = m.Update(context.Background(), []string{"jira"}, false)
		if err != nil || len(changes) != 1 || !changes[0].Updated || changes[0].ToVersion != "2.0.0" {
			t.Fatalf("changes = %+v, %v", changes, err)
		}
		reqs := consent.requests()
		last := reqs[len(reqs)-1]
		if !last.Update || strings.Join(last.Lines, "|") != "network access to evil.example" || last.Previous != "1.0.0" {
			t.Errorf("consent request = %+v, want only the new host", last)
		}
		lock, _ := ReadLock(m.LockPath)
		if lock.Plugins[0].Digest != Digest(v2) || len(lock.Plugins[0].Granted.AllowedHosts) != 2 {
			t.Errorf("lock = %+v", lock.Plugins[0])
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestSignaturesAreRequiredWhenTrustSaysSo(t *testing.T) {
	t.Parallel()
	keyDir := t.TempDir()
	pub, err := GenerateKey(filepath.Join(keyDir, "good.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	// Unencrypted: what is tested is whose key signed, and an encrypted
	// key costs two scrypt derivations of 1 GiB (sign_test.go tests those).
	if _, err := GenerateKey(filepath.Join(keyDir, "other.key"), ""); err != nil {
		t.Fatal(err)
	}
	archive := pack(t, writePlugin(t, t.TempDir(), "jira", "1.0.0", wasm.Capabilities{}, fakeModule))
	good, err := Sign(filepath.Join(keyDir, "good.key"), "", archive)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Sign(filepath.Join(keyDir, "other.key"), "", archive)
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := Sign(filepath.Join(keyDir, "good.key"), "", append(archive, 0))
	tests := []struct {
		name    string
		sig     []byte
		require bool
		want    string // error substring; "" for success
		keyID   bool
	}{
		{"a signature by a trusted key is accepted and recorded", good, true, "", true},
		{"an unsigned plugin is refused", nil, true, "not signed", false},
		{"a plugin signed by an unknown key is refused", other, true, "not in trust.keys", false},
		{"a signature of other bytes is refused", forged, true, "does not verify", false},
		{"a bad signature is refused even when signatures are optional", forged, false, "does not verify", false},
		{"an unsigned plugin is accepted when signatures are optional", nil, false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newManager(t, nil)
			m.Trust = config.Trust{Keys: []string{pub}, RequireSignatures: tt.require}
			p := filepath.Join(t.TempDir(), "jira.tar.gz")
			os.WriteFile(p, archive, 0o644)
			if tt.sig != nil {
				os.WriteFile(p+".minisig", tt.sig, 0o644)
			}
			e, err := m.Add(context.Background(), p, true)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (e.KeyID != "") != tt.keyID {
				t.Errorf("key id = %q", e.KeyID)
			}
			if _, err := m.Open(e); err != nil {
				t.Errorf("open: %v", err)
			}
		})
	}
}

func TestReferencesAreParsed(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	tests := []struct {
		ref, want string
		kind      Kind
	}{
		{"oci://registry.example/acme/jira:1.2.0", "registry.example/acme/jira:1.2.0", KindOCI},
		{"oci://127.0.0.1:5000/jira@sha256:" + strings.Repeat("a", 64), "127.0.0.1:5000/jira@sha256:" + strings.Repeat("a", 64), KindOCI},
		{"oci://registry.example/acme/jira", "no tag or digest", ""},
		{"http://example.com/x.tar.gz", "plain http", ""},
		{"https://example.com/jira-1.2.0.tar.gz", "", KindHTTPS},
		{"./missing", "no such file", ""},
		{".", "", KindDir},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			t.Parallel()
			r, err := ParseRef(tt.ref, base)
			if tt.kind == "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != tt.kind || (tt.kind == KindOCI && r.ociRef() != tt.want) {
				t.Errorf("ref = %+v", r)
			}
		})
	}
}

func FuzzReadArchive(f *testing.F) {
	dir := writePlugin(f, f.TempDir(), "jira", "1.0.0", wasm.Capabilities{}, fakeModule)
	f.Add(pack(f, dir))
	f.Fuzz(func(t *testing.T, data []byte) {
		ac, err := readArchive(data)
		if err != nil {
			return
		}
		for _, mod := range ac.manifest.Modules {
			if _, ok := ac.files[filepath.ToSlash(filepath.Clean(mod))]; !ok {
				t.Fatalf("module %s listed but missing", mod)
			}
		}
	})
}
