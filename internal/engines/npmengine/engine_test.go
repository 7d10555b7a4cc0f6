package npmengine

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var errTest = errors.New("test engine unavailable")

// fakeNpm puts an `npm` on PATH whose `pack` writes tgz (a tarball holding
// package/dist/e.wasm with body) into the working directory under the
// name npm gives a scoped package.
func fakeNpm(t *testing.T, body []byte) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "package/dist/e.wasm", Mode: 0o644, Size: int64(len(body))})
	tw.Write(body)
	tw.Close()
	gz.Close()
	bin := t.TempDir()
	tgz := filepath.Join(bin, "pkg.tgz")
	os.WriteFile(tgz, buf.Bytes(), 0o644)
	cp, err := exec.LookPath("cp")
	if err != nil {
		t.Skip("no cp")
	}
	script := "#!/bin/sh\n" + cp + " " + tgz + " ./scope-eng-1.0.0.tgz\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
}

func spec(good []byte) Spec {
	sum := sha256.Sum256(good)
	return Spec{Package: "@scope/eng", Version: "1.0.0", File: "package/dist/e.wasm", SHA256: hex.EncodeToString(sum[:]), MaxSize: 1 << 10, Lang: "Test", Err: errTest}
}

func TestAScopedEngineIsFetchedVerifiedAndCached(t *testing.T) {
	good := []byte("\x00asm engine")
	fakeNpm(t, good)
	dir := t.TempDir()
	s := spec(good)
	b, err := s.Load(context.Background(), dir)
	if err != nil || !bytes.Equal(b, good) {
		t.Fatalf("Load = %q, %v", b, err)
	}
	if s.Path(dir) != filepath.Join(dir, "eng-1.0.0.wasm") {
		t.Errorf("cached at %s", s.Path(dir))
	}
	if st := s.Check(dir, "eng"); !st.Ready {
		t.Errorf("Check = %+v", st)
	}
}

func TestAnEngineFromNpmWithOtherBytesIsRefusedAndNotCached(t *testing.T) {
	fakeNpm(t, []byte("\x00asm tampered"))
	dir := t.TempDir()
	_, err := spec([]byte("\x00asm engine")).Load(context.Background(), dir)
	if !errors.Is(err, errTest) || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("err = %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a refused engine was cached: %v", ents)
	}
}

func TestAnEngineOverItsSizeBoundIsRefused(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2<<10)
	fakeNpm(t, big)
	if _, err := spec(big).Load(context.Background(), t.TempDir()); !errors.Is(err, errTest) || !strings.Contains(err.Error(), "over") {
		t.Fatalf("err = %v", err)
	}
}
