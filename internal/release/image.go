package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	v1 "github.com/opencontainers/image-spec/specs-go/v1"
)

// The image is the Dockerfile's: a static binary on an empty base, CA
// certificates and an unprivileged user (what a distroless static image
// holds), serving MCP over HTTP. image_test.go checks these against the
// Dockerfile, so the two cannot drift apart.
var (
	imageUser       = "65532:65532"
	imageHome       = "/home/nonroot"
	imageWorkDir    = "/work"
	imagePort       = "8080/tcp"
	imageBinary     = "/usr/local/bin/toolhost"
	imageHelper     = "/usr/local/bin/toolhost-sandbox"
	imageEntrypoint = []string{imageBinary}
	imageCmd        = []string{"mcp", "--http", "0.0.0.0:8080", "--stateless", "--log-format", "json"}
	imagePasswd     = "nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	imageCACerts    = "/etc/ssl/certs/ca-certificates.crt"
)

// Platform is one image of the index: a binary for an OS and architecture.
type Platform struct {
	OS, Arch, Variant string
	Binary            string // path of the toolhost binary built for it
	// Helper is the path of the sandbox helper program built for it
	// (cmd/toolhost-sandbox), put beside toolhost; "" for none.
	Helper string
}

// ImageSpec says what Image writes.
type ImageSpec struct {
	Version   string     // the release version, the images' version label and the index's ref name
	Source    string     // the source repository's URL, a label
	Created   time.Time  // the images' creation time and every file's mtime (the commit time makes it reproducible)
	CACerts   string     // path of the CA certificate bundle copied in
	Platforms []Platform // one image each, in the index in this order
}

// Image writes an OCI image layout in dir (created; it must not exist):
// one single-layer image per platform and an index naming them all, so
// `skopeo copy oci:dir docker://…`, `oras cp --from-oci-layout`, crane or
// any OCI tool publishes it as one multi-platform image. It needs no
// Docker daemon and no base image.
func Image(dir string, spec ImageSpec) error {
	if len(spec.Platforms) == 0 {
		return fmt.Errorf("no platform to build an image for")
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s already exists; remove it or pick another directory", dir)
	}
	certs, err := os.ReadFile(spec.CACerts)
	if err != nil {
		return fmt.Errorf("read the CA certificates to copy into the image: %w (install ca-certificates, or give another bundle)", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
		return err
	}
	var manifests []v1.Descriptor
	for _, p := range spec.Platforms {
		bin, err := os.ReadFile(p.Binary)
		if err != nil {
			return fmt.Errorf("read the %s/%s binary: %w", p.OS, p.Arch, err)
		}
		var helper []byte
		if p.Helper != "" {
			if helper, err = os.ReadFile(p.Helper); err != nil {
				return fmt.Errorf("read the %s/%s sandbox helper program: %w", p.OS, p.Arch, err)
			}
		}
		layer, diffID, err := layerOf(spec.Created, certs, bin, helper)
		if err != nil {
			return err
		}
		layerDesc, err := writeBlob(dir, v1.MediaTypeImageLayerGzip, layer)
		if err != nil {
			return err
		}
		created := spec.Created.UTC()
		labels := map[string]string{
			v1.AnnotationVersion: spec.Version,
			v1.AnnotationSource:  spec.Source,
			v1.AnnotationTitle:   "toolhost",
		}
		config := v1.Image{
			Created:  &created,
			Platform: v1.Platform{OS: p.OS, Architecture: p.Arch, Variant: p.Variant},
			Config: v1.ImageConfig{
				User:         imageUser,
				Env:          []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + imageHome},
				WorkingDir:   imageWorkDir,
				ExposedPorts: map[string]struct{}{imagePort: {}},
				Entrypoint:   imageEntrypoint,
				Cmd:          imageCmd,
				Labels:       labels,
			},
			RootFS:  v1.RootFS{Type: "layers", DiffIDs: []digest.Digest{diffID}},
			History: []v1.History{{Created: &created, CreatedBy: "toolhost-release image " + spec.Version}},
		}
		configDesc, err := writeJSONBlob(dir, v1.MediaTypeImageConfig, config)
		if err != nil {
			return err
		}
		manifest := v1.Manifest{
			Versioned:   specs.Versioned{SchemaVersion: 2},
			MediaType:   v1.MediaTypeImageManifest,
			Config:      configDesc,
			Layers:      []v1.Descriptor{layerDesc},
			Annotations: labels,
		}
		desc, err := writeJSONBlob(dir, v1.MediaTypeImageManifest, manifest)
		if err != nil {
			return err
		}
		desc.Platform = &v1.Platform{OS: p.OS, Architecture: p.Arch, Variant: p.Variant}
		manifests = append(manifests, desc)
	}
	// The layout's index.json names the multi-platform index, tagged with
	// the version, as the one image of the layout.
	index := v1.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: v1.MediaTypeImageIndex, Manifests: manifests}
	indexDesc, err := writeJSONBlob(dir, v1.MediaTypeImageIndex, index)
	if err != nil {
		return err
	}
	indexDesc.Annotations = map[string]string{v1.AnnotationRefName: spec.Version}
	top, err := json.Marshal(v1.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: v1.MediaTypeImageIndex, Manifests: []v1.Descriptor{indexDesc}})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, v1.ImageIndexFile), top, 0o644); err != nil {
		return err
	}
	layout, _ := json.Marshal(v1.ImageLayout{Version: v1.ImageLayoutVersion})
	return os.WriteFile(filepath.Join(dir, v1.ImageLayoutFile), layout, 0o644)
}

// layerOf is the image's one layer, gzipped, and the digest of the
// uncompressed tar (its diff ID). Every entry has the same mtime and
// numeric owners, so the same inputs give the same bytes.
func layerOf(mtime time.Time, certs, bin, helper []byte) ([]byte, digest.Digest, error) {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	dir := func(name string, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, Uid: uid, Gid: uid, ModTime: mtime, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, body []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(body)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	steps := []func() error{
		func() error { return dir("etc", 0) },
		func() error { return file("etc/passwd", 0o644, []byte(imagePasswd)) },
		func() error { return dir("etc/ssl", 0) },
		func() error { return dir("etc/ssl/certs", 0) },
		func() error { return file(imageCACerts[1:], 0o644, certs) },
		func() error { return dir("home", 0) },
		func() error { return dir(imageHome[1:], 65532) },
		func() error { return dir("usr", 0) },
		func() error { return dir("usr/local", 0) },
		func() error { return dir("usr/local/bin", 0) },
		func() error { return file(imageBinary[1:], 0o755, bin) },
		func() error {
			if helper == nil {
				return nil
			}
			return file(imageHelper[1:], 0o755, helper)
		},
		func() error { return dir(imageWorkDir[1:], 65532) },
		tw.Close,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, "", fmt.Errorf("write the image layer: %w", err)
		}
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return gz.Bytes(), digest.FromBytes(raw.Bytes()), nil
}

func writeJSONBlob(dir, mediaType string, v any) (v1.Descriptor, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return v1.Descriptor{}, err
	}
	return writeBlob(dir, mediaType, b)
}

// writeBlob stores b under blobs/sha256/ and describes it.
func writeBlob(dir, mediaType string, b []byte) (v1.Descriptor, error) {
	sum := sha256.Sum256(b)
	d := digest.NewDigestFromBytes(digest.SHA256, sum[:])
	name := filepath.Join(dir, "blobs", "sha256", d.Encoded())
	if err := os.WriteFile(name, b, 0o644); err != nil {
		return v1.Descriptor{}, fmt.Errorf("write blob %s: %w", path.Base(name), err)
	}
	return v1.Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(b))}, nil
}
