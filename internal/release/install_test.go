package release_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"
)

// fakeRelease writes what a release publishes for linux/amd64 — the
// archive, checksums.txt and its signature — into a directory, with a
// toolhost that is a shell script printing its version.
func fakeRelease(t *testing.T, key minisign.PrivateKey) string {
	t.Helper()
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	tw := tar.NewWriter(zw)
	for name, script := range map[string]string{
		"toolhost":         "#!/bin/sh\necho toolhost v9.9.9-test\n",
		"toolhost-sandbox": "#!/bin/sh\necho 2+test\n",
	} {
		must(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(script))}))
		_, err := tw.Write([]byte(script))
		must(t, err)
	}
	must(t, tw.Close())
	must(t, zw.Close())
	must(t, os.WriteFile(filepath.Join(dir, "toolhost_linux_amd64.tar.gz"), gz.Bytes(), 0o644))
	sums := fmt.Sprintf("%x  toolhost_linux_amd64.tar.gz\n%x  toolhost_linux_amd64.cdx.json\n", sha256.Sum256(gz.Bytes()), sha256.Sum256([]byte("{}")))
	must(t, os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(sums), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "checksums.txt.minisig"), minisign.Sign(key, []byte(sums)), 0o644))
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestInstallScript runs install.sh, as a person would, against a release
// served on loopback: it installs only an archive that matches the
// checksum, and only under a signature that verifies when a key is given.
func TestInstallScript(t *testing.T) {
	t.Parallel()
	_, haveMinisign := exec.LookPath("minisign")
	if haveMinisign != nil && os.Getenv("TOOLHOST_TEST_MINISIGN") == "required" {
		t.Fatal("minisign is not installed, and .ci/release needs install.sh's signature check tested")
	}
	pub, key, err := minisign.GenerateKey(rand.Reader)
	must(t, err)
	otherPub, _, err := minisign.GenerateKey(rand.Reader)
	must(t, err)

	tests := []struct {
		name     string
		tamper   func(dir string)
		env      []string
		minisign bool
		wantErr  string // "" means installed
	}{
		{name: "installs the archive whose checksum matches"},
		{
			name: "refuses an archive changed after the checksums were made",
			tamper: func(dir string) {
				f := filepath.Join(dir, "toolhost_linux_amd64.tar.gz")
				b, _ := os.ReadFile(f)
				b[len(b)/2] ^= 0xff
				_ = os.WriteFile(f, b, 0o644)
			},
			wantErr: "checksum mismatch",
		},
		{name: "refuses a system the release has no build for", env: []string{"TOOLHOST_ARCH=arm64"}, wantErr: "names no toolhost_linux_arm64.tar.gz"},
		{name: "refuses an unknown architecture", env: []string{"TOOLHOST_ARCH=riscv64"}, wantErr: "no release for the architecture riscv64"},
		{name: "installs under a signature that verifies", env: []string{"TOOLHOST_PUBKEY=" + pub.String()}, minisign: true},
		{
			name:     "refuses checksums.txt changed after it was signed",
			env:      []string{"TOOLHOST_PUBKEY=" + pub.String()},
			minisign: true,
			tamper: func(dir string) {
				f := filepath.Join(dir, "checksums.txt")
				b, _ := os.ReadFile(f)
				_ = os.WriteFile(f, append(b, "0000  evil.tar.gz\n"...), 0o644)
			},
			wantErr: "does not verify",
		},
		{name: "refuses a signature by another key", env: []string{"TOOLHOST_PUBKEY=" + otherPub.String()}, minisign: true, wantErr: "does not verify"},
	}
	script, err := filepath.Abs("../../install.sh")
	must(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.minisign && haveMinisign != nil {
				t.Skip("minisign is not installed (apt-get install minisign); .ci/release installs it and runs this test")
			}
			dist := fakeRelease(t, key)
			if tt.tamper != nil {
				tt.tamper(dist)
			}
			srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
			defer srv.Close()
			bin := filepath.Join(t.TempDir(), "bin")
			cmd := exec.Command("sh", script)
			cmd.Env = append(os.Environ(), "TOOLHOST_BASE_URL="+srv.URL, "TOOLHOST_INSTALL_DIR="+bin,
				"TOOLHOST_OS=linux", "TOOLHOST_ARCH=amd64", "TOOLHOST_PUBKEY=")
			cmd.Env = append(cmd.Env, tt.env...)
			out, err := cmd.CombinedOutput()
			_, statErr := os.Stat(filepath.Join(bin, "toolhost"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(string(out), tt.wantErr) {
					t.Fatalf("install.sh = %v\n%s\nwant a failure saying %q", err, out, tt.wantErr)
				}
				if statErr == nil {
					t.Fatal("install.sh failed yet left a toolhost installed")
				}
				return
			}
			if err != nil {
				t.Fatalf("install.sh: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "toolhost v9.9.9-test") {
				t.Errorf("install.sh did not report the installed version:\n%s", out)
			}
			got, err := exec.Command(filepath.Join(bin, "toolhost")).Output()
			if err != nil || string(got) != "toolhost v9.9.9-test\n" {
				t.Errorf("the installed toolhost = %q, %v", got, err)
			}
			// The sandbox helper program of the archive, beside toolhost.
			if got, err := exec.Command(filepath.Join(bin, "toolhost-sandbox")).Output(); err != nil || string(got) != "2+test\n" {
				t.Errorf("the installed toolhost-sandbox = %q, %v", got, err)
			}
		})
	}
}
