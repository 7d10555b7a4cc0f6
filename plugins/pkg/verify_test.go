package pkg

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime/config"
)

// tamperFixture is a signed plugin served over https on loopback and
// added to a project: what the tampering tests change.
type tamperFixture struct {
	m        *Manager
	srv      *archiveServer
	e        Locked
	ref      string
	archive  []byte
	sig      []byte
	module   string // the unpacked module
	blob     string // the cached archive
	requests *atomic.Int64
	logs     *captureHandler
	keyDir   string
}

func newTamperFixture(t *testing.T) *tamperFixture {
	t.Helper()
	f := &tamperFixture{srv: newArchiveServer(t), requests: &atomic.Int64{}, logs: &captureHandler{}, keyDir: t.TempDir()}
	pub, err := GenerateKey(filepath.Join(f.keyDir, "good.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	f.archive = pack(t, writePlugin(t, t.TempDir(), "jira", "1.0.0", wasm.Capabilities{AllowedHosts: []string{"jira.example"}}, fakeModule))
	if f.sig, err = Sign(filepath.Join(f.keyDir, "good.key"), "", f.archive); err != nil {
		t.Fatal(err)
	}
	f.srv.put("/jira.tar.gz", f.archive)
	f.srv.put("/jira.tar.gz.minisig", f.sig)
	f.ref = f.srv.URL + "/jira.tar.gz"
	f.m = newManager(t, nil)
	f.m.Trust = config.Trust{Keys: []string{pub}}
	tr := f.srv.Client().Transport
	f.m.HTTPClient = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		f.requests.Add(1)
		return tr.RoundTrip(r)
	})}
	f.m.Logger = slog.New(f.logs)
	if f.e, err = f.m.Add(context.Background(), f.ref, true); err != nil {
		t.Fatal(err)
	}
	if f.e.KeyID == "" || f.e.Signature != string(f.sig) {
		t.Fatalf("locked = %+v, want it signed", f.e)
	}
	f.blob = f.m.Cache.Path(f.e.Digest)
	f.module = filepath.Join(f.m.Cache.unpackedDir(f.e.Digest), "jira.wasm")
	if _, err := os.Stat(f.module); err != nil {
		t.Fatal(err)
	}
	return f
}

// editLock rewrites the lock entry of the fixture's plugin.
func (f *tamperFixture) editLock(t *testing.T, edit func(e *Locked)) {
	t.Helper()
	lock, err := ReadLock(f.m.LockPath)
	if err != nil {
		t.Fatal(err)
	}
	edit(&lock.Plugins[0])
	if err := lock.Write(f.m.LockPath); err != nil {
		t.Fatal(err)
	}
}

// snapshot lists every file under roots with what it is: a digest for a
// regular file, the target of a link, or a directory.
func snapshot(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				out[p] = "link " + target
			case fi.IsDir():
				out[p] = "dir " + fi.Mode().String()
			default:
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				out[p] = fi.Mode().String() + " " + Digest(b)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed %s: %q → %q", what, p, v, after[p])
		}
	}
	for p, v := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s created %s (%s)", what, p, v)
		}
	}
}

// captureHandler keeps every log record.
type captureHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

func (h *captureHandler) all() []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]slog.Record(nil), h.records...)
}

func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	return m
}

var evilModule = []byte("\x00asm\x01\x00\x00\x00 evil")

// editedSignature changes one character in the middle of the signature
// line (the second line of a minisign signature).
func editedSignature(t *testing.T, sig string) string {
	t.Helper()
	lines := strings.Split(sig, "\n")
	if len(lines) < 2 || len(lines[1]) < 20 {
		t.Fatalf("unexpected signature %q", sig)
	}
	b := []byte(lines[1])
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	lines[1] = string(b)
	return strings.Join(lines, "\n")
}

func TestVerifyReportsTamperingWithoutChangingAnythingAndRepairRestoresIt(t *testing.T) {
	t.Parallel()
	type tampered struct {
		kind       ProblemKind
		file       string
		want, got  string
		mentions   string // also in the message
		viaNetwork bool   // repair must fetch
	}
	tests := []struct {
		name   string
		tamper func(t *testing.T, f *tamperFixture) tampered
		// failed is a substring of why repair cannot heal it; "" heals.
		failed string
	}{
		{"a replaced unpacked module is restored from the verified archive without the network", func(t *testing.T, f *tamperFixture) tampered {
			os.WriteFile(f.module, evilModule, 0o644)
			return tampered{ProblemModule, f.module, Digest(fakeModule), Digest(evilModule), "verified archive", false}
		}, ""},
		{"a replaced archive blob is fetched again at its locked digest", func(t *testing.T, f *tamperFixture) tampered {
			other := pack(t, writePlugin(t, t.TempDir(), "jira", "1.0.1", wasm.Capabilities{AllowedHosts: []string{"evil.example"}}, evilModule))
			os.WriteFile(f.blob, other, 0o644)
			return tampered{ProblemBlob, f.blob, f.e.Digest, Digest(other), "toolhost.lock says", true}
		}, ""},
		{"a deleted blob is fetched again at its locked digest", func(t *testing.T, f *tamperFixture) tampered {
			os.Remove(f.blob)
			return tampered{ProblemBlob, f.blob, f.e.Digest, "", "missing", true}
		}, ""},
		{"an edited signature in the lock is fetched again and checked with the locked key", func(t *testing.T, f *tamperFixture) tampered {
			edited := editedSignature(t, f.e.Signature)
			f.editLock(t, func(e *Locked) { e.Signature = edited })
			return tampered{ProblemSignature, f.m.LockPath, f.e.Digest, Digest([]byte(edited)), "does not verify", true}
		}, ""},
		{"a signature deleted from the lock while its key id stays is restored", func(t *testing.T, f *tamperFixture) tampered {
			f.editLock(t, func(e *Locked) { e.Signature = "" })
			return tampered{ProblemSignature, f.m.LockPath, f.e.Digest, "", f.e.KeyID, true}
		}, ""},
		{"an unpacked module replaced by a link to the same bytes is replaced by a file", func(t *testing.T, f *tamperFixture) tampered {
			elsewhere := filepath.Join(t.TempDir(), "jira.wasm")
			os.WriteFile(elsewhere, fakeModule, 0o644)
			os.Remove(f.module)
			if err := os.Symlink(elsewhere, f.module); err != nil {
				t.Skipf("skipped: no symbolic links here: %v", err)
			}
			return tampered{ProblemModule, f.module, Digest(fakeModule), Digest(fakeModule), "not a regular file", false}
		}, ""},
		{"a blob replaced by a directory is removed and fetched again", func(t *testing.T, f *tamperFixture) tampered {
			os.Remove(f.blob)
			os.MkdirAll(filepath.Join(f.blob, "inside"), 0o755)
			return tampered{ProblemBlob, f.blob, f.e.Digest, "", "not a regular file", true}
		}, ""},
		{"an unpacked directory deleted whole is unpacked again", func(t *testing.T, f *tamperFixture) tampered {
			os.RemoveAll(filepath.Dir(f.module))
			return tampered{ProblemModule, f.module, Digest(fakeModule), "", "missing", false}
		}, ""},
		{"a replaced blob is not repaired from a source that now serves other bytes", func(t *testing.T, f *tamperFixture) tampered {
			other := pack(t, writePlugin(t, t.TempDir(), "jira", "1.0.1", wasm.Capabilities{}, evilModule))
			os.WriteFile(f.blob, other, 0o644)
			f.srv.put("/jira.tar.gz", other)
			return tampered{ProblemBlob, f.blob, f.e.Digest, Digest(other), "toolhost.lock says", true}
		}, "digest mismatch"},
		{"an edited signature is not replaced by one from an untrusted key", func(t *testing.T, f *tamperFixture) tampered {
			if _, err := GenerateKey(filepath.Join(f.keyDir, "evil.key"), ""); err != nil {
				t.Fatal(err)
			}
			forged, err := Sign(filepath.Join(f.keyDir, "evil.key"), "", f.archive)
			if err != nil {
				t.Fatal(err)
			}
			f.srv.put("/jira.tar.gz.minisig", forged)
			edited := editedSignature(t, f.e.Signature)
			f.editLock(t, func(e *Locked) { e.Signature = edited })
			return tampered{ProblemSignature, f.m.LockPath, f.e.Digest, Digest([]byte(edited)), "does not verify", true}
		}, "is not signed by key"},
		{"a lock digest that is not a sha256 is refused and nothing is touched", func(t *testing.T, f *tamperFixture) tampered {
			f.editLock(t, func(e *Locked) { e.Digest = "sha256:../../../etc" })
			return tampered{ProblemLock, f.m.LockPath, "", "", "version control", false}
		}, "restore it from version control"},
		{"a lock entry whose kind contradicts its package is refused and nothing is touched", func(t *testing.T, f *tamperFixture) tampered {
			f.editLock(t, func(e *Locked) { e.Kind = KindOCI })
			return tampered{ProblemLock, f.m.LockPath, "", "", "not an OCI manifest", false}
		}, "restore it from version control"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newTamperFixture(t)
			want := tt.tamper(t, f)
			before := snapshot(t, f.m.Cache.Dir, f.m.Base)
			fetchesBefore := f.requests.Load()

			r, err := f.m.Verify()
			if err != nil {
				t.Fatal(err)
			}
			sameSnapshot(t, "verify", before, snapshot(t, f.m.Cache.Dir, f.m.Base))
			if n := f.requests.Load() - fetchesBefore; n != 0 {
				t.Errorf("verify made %d requests, want none", n)
			}
			if len(r.Problems) != 1 || r.OK() {
				t.Fatalf("verify found %v, want one problem", r.Problems)
			}
			p := r.Problems[0]
			if p.Kind != want.kind || p.File != want.file || p.Want != want.want || p.Got != want.got || p.Plugin != "jira" {
				t.Errorf("problem = %+v, want %+v", p, want)
			}
			msg := p.Error()
			for _, s := range []string{want.file, want.want, want.got, want.mentions} {
				if !strings.Contains(msg, s) {
					t.Errorf("problem %q does not name %q", msg, s)
				}
			}

			fetchesBefore = f.requests.Load()
			r, err = f.m.Repair(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tt.failed != "" {
				if len(r.Failed) != 1 || !strings.Contains(r.Failed[0].Error(), tt.failed) || r.OK() || len(r.Restored) != 0 {
					t.Fatalf("repair = %+v, want it to fail with %q", r, tt.failed)
				}
				sameSnapshot(t, "a failed repair", before, snapshot(t, f.m.Cache.Dir, f.m.Base))
				return
			}
			if !r.OK() || len(r.Failed) != 0 || len(r.Problems) != 1 {
				t.Fatalf("repair = %+v, want it healed", r)
			}
			var said []string
			restored := false
			for _, x := range r.Restored {
				said = append(said, x.String())
				restored = restored || (x.Kind == want.kind && x.File == want.file)
			}
			if !restored || !strings.Contains(strings.Join(said, "\n"), "restored "+map[bool]string{true: "the signature in ", false: ""}[want.kind == ProblemSignature]+want.file) {
				t.Errorf("repair says %q, want %s restored", said, want.file)
			}
			if fetched := f.requests.Load() > fetchesBefore; fetched != want.viaNetwork {
				t.Errorf("repair used the network: %v, want %v", fetched, want.viaNetwork)
			}
			if r, err := f.m.Verify(); err != nil || !r.OK() {
				t.Fatalf("verify after repair = %+v, %v", r, err)
			}
			if lock, _ := ReadLock(f.m.LockPath); lock.Plugins[0].Signature != string(f.sig) || lock.Plugins[0].Digest != f.e.Digest {
				t.Errorf("lock after repair = %+v", lock.Plugins[0])
			}
			if fi, err := os.Lstat(f.module); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("module after repair: %v, %v", fi, err)
			}
			if _, err := f.m.Open(f.e); err != nil {
				t.Fatalf("open after repair: %v", err)
			}
			if logs := f.logs.all(); len(logs) != 0 {
				t.Errorf("logged %d records after a repair, want none: %v", len(logs), logs[0].Message)
			}
		})
	}
}

func TestOpeningHealsAChangedModuleAndWarnsOnceNamingIt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tamper func(t *testing.T, f *tamperFixture) (found string)
		warns  bool
	}{
		{"a replaced module is restored with one warning naming both digests", func(t *testing.T, f *tamperFixture) string {
			os.WriteFile(f.module, evilModule, 0o644)
			return Digest(evilModule)
		}, true},
		{"a deleted module is restored with one warning", func(t *testing.T, f *tamperFixture) string {
			os.Remove(f.module)
			return "missing"
		}, true},
		{"a module replaced by a link is replaced by a file, the link's target untouched", func(t *testing.T, f *tamperFixture) string {
			elsewhere := filepath.Join(t.TempDir(), "jira.wasm")
			os.WriteFile(elsewhere, evilModule, 0o644)
			os.Remove(f.module)
			if err := os.Symlink(elsewhere, f.module); err != nil {
				t.Skipf("skipped: no symbolic links here: %v", err)
			}
			t.Cleanup(func() {
				if b, _ := os.ReadFile(elsewhere); string(b) != string(evilModule) {
					t.Error("the link's target was written")
				}
			})
			return Digest(evilModule)
		}, true},
		{"a cleaned unpacked directory is unpacked again quietly", func(t *testing.T, f *tamperFixture) string {
			os.RemoveAll(filepath.Dir(f.module))
			return ""
		}, false},
		{"an untouched cache logs nothing", func(t *testing.T, f *tamperFixture) string { return "" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newTamperFixture(t)
			found := tt.tamper(t, f)
			for range 2 {
				src, err := f.m.Open(f.e)
				if err != nil {
					t.Fatal(err)
				}
				if b, err := os.ReadFile(src.Modules[0].Path); err != nil || string(b) != string(fakeModule) {
					t.Fatalf("opened module = %q, %v; want the archive's bytes", b, err)
				}
			}
			logs := f.logs.all()
			if !tt.warns {
				if len(logs) != 0 {
					t.Fatalf("logged %v, want nothing", logs[0].Message)
				}
				return
			}
			if len(logs) != 1 || logs[0].Level != slog.LevelWarn {
				t.Fatalf("logged %d records, want one warning over two opens", len(logs))
			}
			a := attrs(logs[0])
			if a["file"] != f.module || a["plugin"] != "jira" || a["want"] != Digest(fakeModule) || a["found"] != found {
				t.Errorf("warning %q %v, want file %s, want %s, found %s", logs[0].Message, a, f.module, Digest(fakeModule), found)
			}
			if r, err := f.m.Verify(); err != nil || !r.OK() {
				t.Errorf("verify after opening = %+v, %v", r, err)
			}
		})
	}
}

func TestRepairOfAnUntouchedCacheChangesNothing(t *testing.T) {
	t.Parallel()
	f := newTamperFixture(t)
	before := snapshot(t, f.m.Cache.Dir, f.m.Base)
	r, err := f.m.Repair(context.Background())
	if err != nil || !r.OK() || len(r.Problems)+len(r.Restored)+len(r.Failed) != 0 {
		t.Fatalf("repair = %+v, %v", r, err)
	}
	sameSnapshot(t, "repair", before, snapshot(t, f.m.Cache.Dir, f.m.Base))
	if f.requests.Load() != 2 { // the archive and its signature, when added
		t.Errorf("requests = %d, want only the two of add", f.requests.Load())
	}
}

func TestProblemsUnwrapToTheirCause(t *testing.T) {
	t.Parallel()
	f := newTamperFixture(t)
	os.WriteFile(f.module, evilModule, 0o644)
	r, _ := f.m.Verify()
	if len(r.Problems) != 1 || !errors.Is(r.Problems[0], ErrDigestMismatch) {
		t.Fatalf("problems = %v, want a digest mismatch", r.Problems)
	}
	os.Remove(f.blob)
	r, _ = f.m.Verify()
	if len(r.Problems) != 1 || !errors.Is(r.Problems[0], ErrNotCached) {
		t.Fatalf("problems = %v, want not cached", r.Problems)
	}
}

func TestRepairAlsoRestoresWhatABadBlobHid(t *testing.T) {
	t.Parallel()
	f := newTamperFixture(t)
	os.Remove(f.blob)
	os.WriteFile(f.module, evilModule, 0o644)
	edited := editedSignature(t, f.e.Signature)
	f.editLock(t, func(e *Locked) { e.Signature = edited })
	r, err := f.m.Verify()
	if err != nil || len(r.Problems) != 1 || r.Problems[0].File != f.blob {
		t.Fatalf("verify = %+v, %v; want only the missing blob, which hides the rest", r, err)
	}
	r, err = f.m.Repair(context.Background())
	if err != nil || !r.OK() {
		t.Fatalf("repair = %+v, %v", r, err)
	}
	var found, restored []string
	for _, p := range r.Problems {
		found = append(found, string(p.Kind)+" "+p.File+" "+p.Got)
	}
	for _, x := range r.Restored {
		restored = append(restored, string(x.Kind)+" "+x.File)
	}
	wantFound := []string{
		"blob " + f.blob + " ",
		"module " + f.module + " " + Digest(evilModule),
		"signature " + f.m.LockPath + " " + Digest([]byte(edited)),
	}
	wantRestored := []string{"blob " + f.blob, "module " + f.module, "signature " + f.m.LockPath}
	if strings.Join(found, "\n") != strings.Join(wantFound, "\n") {
		t.Errorf("repair found\n%s\nwant\n%s", strings.Join(found, "\n"), strings.Join(wantFound, "\n"))
	}
	if strings.Join(restored, "\n") != strings.Join(wantRestored, "\n") {
		t.Errorf("repair restored\n%s\nwant\n%s", strings.Join(restored, "\n"), strings.Join(wantRestored, "\n"))
	}
	if lock, _ := ReadLock(f.m.LockPath); lock.Plugins[0].Signature != string(f.sig) {
		t.Error("the signature was not restored")
	}
}
