package release_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/toolhost/toolhost/internal/release"
)

// layout reads an OCI image layout back, checking each blob against its
// digest and size as a registry would.
type layout struct {
	t   *testing.T
	dir string
}

func (l layout) blob(d v1.Descriptor, v any) []byte {
	l.t.Helper()
	b, err := os.ReadFile(filepath.Join(l.dir, "blobs", "sha256", d.Digest.Encoded()))
	if err != nil {
		l.t.Fatal(err)
	}
	if got := fmt.Sprintf("sha256:%x", sha256.Sum256(b)); got != d.Digest.String() || int64(len(b)) != d.Size {
		l.t.Fatalf("blob %s: digest %s, size %d (want %d)", d.Digest, got, len(b), d.Size)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			l.t.Fatal(err)
		}
	}
	return b
}

func TestImageIsTheDockerfilesImageForEachPlatform(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bins, helpers := map[string]string{}, map[string]string{}
	for _, arch := range []string{"amd64", "arm64"} {
		bins[arch] = filepath.Join(dir, "toolhost-"+arch)
		helpers[arch] = filepath.Join(dir, "toolhost-sandbox-"+arch)
		if err := os.WriteFile(bins[arch], []byte("binary for "+arch), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(helpers[arch], []byte("helper for "+arch), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	certs := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(certs, []byte("CERTS"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image")
	spec := release.ImageSpec{
		Version: "v1.2.3", Source: "https://example.invalid/toolhost", Created: time.Unix(1_800_000_000, 0), CACerts: certs,
		Platforms: []release.Platform{{OS: "linux", Arch: "amd64", Binary: bins["amd64"], Helper: helpers["amd64"]}, {OS: "linux", Arch: "arm64", Variant: "v8", Binary: bins["arm64"], Helper: helpers["arm64"]}},
	}
	if err := release.Image(out, spec); err != nil {
		t.Fatal(err)
	}
	if err := release.Image(out, spec); err == nil {
		t.Error("a second Image into the same directory did not fail")
	}
	l := layout{t, out}
	var top v1.Index
	b, _ := os.ReadFile(filepath.Join(out, "index.json"))
	if err := json.Unmarshal(b, &top); err != nil || len(top.Manifests) != 1 || top.Manifests[0].Annotations[v1.AnnotationRefName] != "v1.2.3" {
		t.Fatalf("index.json = %s (%v)", b, err)
	}
	var index v1.Index
	l.blob(top.Manifests[0], &index)
	if len(index.Manifests) != 2 {
		t.Fatalf("the index names %d images, want 2", len(index.Manifests))
	}
	docker := dockerfile(t)
	for i, arch := range []string{"amd64", "arm64"} {
		d := index.Manifests[i]
		if d.Platform == nil || d.Platform.OS != "linux" || d.Platform.Architecture != arch {
			t.Errorf("image %d is for %+v, want linux/%s", i, d.Platform, arch)
		}
		var m v1.Manifest
		l.blob(d, &m)
		var c v1.Image
		l.blob(m.Config, &c)
		cfg := c.Config
		if !slices.Equal(cfg.Entrypoint, docker["ENTRYPOINT"]) || !slices.Equal(cfg.Cmd, docker["CMD"]) ||
			cfg.User != docker["USER"][0] || cfg.WorkingDir != docker["WORKDIR"][0] ||
			!slices.Contains(cfg.Env, docker["ENV"][0]) {
			t.Errorf("%s config %+v differs from the Dockerfile's %v", arch, cfg, docker)
		}
		if !slices.Contains(docker["COPY"], "/usr/local/bin/toolhost-sandbox") {
			t.Errorf("the Dockerfile copies no sandbox helper program beside toolhost (COPY to %v)", docker["COPY"])
		}
		if _, ok := cfg.ExposedPorts[docker["EXPOSE"][0]+"/tcp"]; !ok {
			t.Errorf("%s exposes %v, want %s", arch, cfg.ExposedPorts, docker["EXPOSE"])
		}
		files := readLayer(t, l.blob(m.Layers[0], nil), c.RootFS.DiffIDs[0].String())
		for name, want := range map[string]string{
			"usr/local/bin/toolhost":            "0755 0 binary for " + arch,
			"usr/local/bin/toolhost-sandbox":    "0755 0 helper for " + arch,
			"etc/ssl/certs/ca-certificates.crt": "0644 0 CERTS",
			"etc/passwd":                        "0644 0 nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n",
			"home/nonroot/":                     "0755 65532 ",
			"work/":                             "0755 65532 ",
		} {
			if files[name] != want {
				t.Errorf("%s layer: %s = %q, want %q", arch, name, files[name], want)
			}
		}
	}
	// The same inputs give the same image, digest for digest.
	again := filepath.Join(dir, "again")
	if err := release.Image(again, spec); err != nil {
		t.Fatal(err)
	}
	b2, _ := os.ReadFile(filepath.Join(again, "index.json"))
	if !bytes.Equal(b, b2) {
		t.Errorf("two builds of the same image differ:\n%s\n%s", b, b2)
	}
}

// readLayer returns each entry of a gzipped layer as "mode uid content",
// checking the uncompressed digest against the config's diff ID.
func readLayer(t *testing.T, gz []byte, diffID string) map[string]string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("sha256:%x", sha256.Sum256(raw)); got != diffID {
		t.Errorf("layer diff ID %s, config says %s", got, diffID)
	}
	files := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		files[h.Name] = fmt.Sprintf("%04o %d %s", h.Mode, h.Uid, body)
	}
}

// dockerfile reads the runtime stage's instructions from the repository's
// Dockerfile: the image built without Docker must be the same.
func dockerfile(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		word, rest, _ := strings.Cut(sc.Text(), " ")
		switch word {
		case "ENTRYPOINT", "CMD":
			var v []string
			if err := json.Unmarshal([]byte(rest), &v); err != nil {
				t.Fatalf("Dockerfile %s: %v", word, err)
			}
			got[word] = v
		case "USER", "WORKDIR", "EXPOSE", "ENV":
			got[word] = []string{rest}
		case "COPY": // the destinations
			f := strings.Fields(rest)
			got[word] = append(got[word], f[len(f)-1])
		}
	}
	for _, k := range []string{"ENTRYPOINT", "CMD", "USER", "WORKDIR", "EXPOSE", "ENV"} {
		if got[k] == nil {
			t.Fatalf("the Dockerfile has no %s; update this test and internal/release/image.go together", k)
		}
	}
	return got
}
