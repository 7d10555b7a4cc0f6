package pkg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"path"
	"sort"
	"strings"

	"aead.dev/minisign"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/toolhost/toolhost/plugins/wasm"
)

// The OCI media types of a plugin artifact (docs/plugins.md): an OCI
// image manifest with artifactType ArtifactType, the plugin's
// toolhost-plugin.json as its config, and one layer per module, titled
// with the module's path.
const (
	ArtifactType    = "application/vnd.toolhost.plugin.v1"
	MediaTypeConfig = "application/vnd.toolhost.plugin.config.v1+json"
	MediaTypeModule = "application/vnd.toolhost.plugin.module.v1.wasm"
	// A signature is a separate artifact of type SignatureArtifactType,
	// tagged sha256-<hex>.minisig after the manifest it signs, whose one
	// layer is the minisign signature of the manifest's bytes.
	SignatureArtifactType = "application/vnd.toolhost.plugin.signature.v1"
	MediaTypeSignature    = "application/vnd.toolhost.plugin.signature.v1+minisign"
)

// createdAt is the fixed creation time in manifests, for reproducible
// digests.
const createdAt = "1970-01-01T00:00:00Z"

// RegistryOptions configure access to OCI registries.
type RegistryOptions struct {
	// PlainHTTP says whether to speak plain HTTP to a registry host.
	// Default: only for loopback hosts (localhost, 127.0.0.1, ::1), as
	// Docker does.
	PlainHTTP func(host string) bool
	// Credential returns credentials for a registry. Default: the Docker
	// config file ($DOCKER_CONFIG/config.json, ~/.docker/config.json) and
	// its credential helpers.
	Credential auth.CredentialFunc
	// HTTPClient is the client under the auth layer. Default: oras's
	// retrying client.
	HTTPClient *http.Client
}

// repository opens a remote repository with auth and the transport rules.
func (o RegistryOptions) repository(r Ref) (*remote.Repository, error) {
	repo, err := remote.NewRepository(r.Registry + "/" + r.Repository)
	if err != nil {
		return nil, fmt.Errorf("oci reference %s: %w", r.Raw, err)
	}
	plain := o.PlainHTTP
	if plain == nil {
		plain = isLoopback
	}
	repo.PlainHTTP = plain(r.Registry)
	cred := o.Credential
	if cred == nil {
		if store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{}); err == nil {
			cred = credentials.Credential(store)
		}
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = retry.DefaultClient
	}
	repo.Client = &auth.Client{Client: hc, Cache: auth.NewCache(), Credential: cred}
	return repo, nil
}

func isLoopback(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Push publishes a plugin archive (from Pack) to an oci:// reference with
// a tag, and returns the manifest digest. The artifact is reproducible:
// the same archive gives the same digest.
func Push(ctx context.Context, archive []byte, raw string, opts RegistryOptions) (string, error) {
	r, err := ParseRef(raw, "")
	if err != nil {
		return "", err
	}
	if r.Kind != KindOCI || r.Tag == "" {
		return "", fmt.Errorf("push to %q: want oci://registry/repository:tag", raw)
	}
	ac, err := readArchive(archive)
	if err != nil {
		return "", err
	}
	repo, err := opts.repository(r)
	if err != nil {
		return "", err
	}
	cfg, err := oras.PushBytes(ctx, repo, MediaTypeConfig, ac.files[wasm.ManifestFile])
	if err != nil {
		return "", fmt.Errorf("push %s config: %w", raw, err)
	}
	var layers []ocispec.Descriptor
	for _, mod := range ac.manifest.Modules {
		d, err := oras.PushBytes(ctx, repo, MediaTypeModule, ac.files[path.Clean(mod)])
		if err != nil {
			return "", fmt.Errorf("push %s module %s: %w", raw, mod, err)
		}
		d.Annotations = map[string]string{ocispec.AnnotationTitle: mod}
		layers = append(layers, d)
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{
		ConfigDescriptor: &cfg,
		Layers:           layers,
		ManifestAnnotations: map[string]string{
			ocispec.AnnotationCreated: createdAt,
			ocispec.AnnotationTitle:   ac.manifest.Name,
			ocispec.AnnotationVersion: ac.manifest.Version,
		},
	})
	if err != nil {
		return "", fmt.Errorf("push %s manifest: %w", raw, err)
	}
	if err := repo.Tag(ctx, desc, r.Tag); err != nil {
		return "", fmt.Errorf("tag %s: %w", raw, err)
	}
	return desc.Digest.String(), nil
}

// PushSignature attaches a minisign signature to the plugin manifest with
// digest in the repository of raw.
func PushSignature(ctx context.Context, raw, digest string, sig []byte, opts RegistryOptions) error {
	r, err := ParseRef(raw, "")
	if err != nil {
		return err
	}
	repo, err := opts.repository(r)
	if err != nil {
		return err
	}
	layer, err := oras.PushBytes(ctx, repo, MediaTypeSignature, sig)
	if err != nil {
		return fmt.Errorf("push signature: %w", err)
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, SignatureArtifactType, oras.PackManifestOptions{
		Layers:              []ocispec.Descriptor{layer},
		ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: createdAt},
	})
	if err != nil {
		return fmt.Errorf("push signature manifest: %w", err)
	}
	if err := repo.Tag(ctx, desc, sigTag(digest)); err != nil {
		return fmt.Errorf("tag signature: %w", err)
	}
	return nil
}

func sigTag(digest string) string { return strings.Replace(digest, ":", "-", 1) + ".minisig" }

// ociManifest is the part of an OCI manifest a plugin needs.
type ociManifest struct {
	ArtifactType string               `json:"artifactType"`
	Config       ocispec.Descriptor   `json:"config"`
	Layers       []ocispec.Descriptor `json:"layers"`
}

// pullOCI resolves r (or fetches want, the locked digest, when set),
// stores the manifest, config and layers in the cache (each checked
// against its digest), and returns the manifest bytes and the signature
// when one is attached.
//
// limit bounds the package: the manifest, then its config and layers
// together, are checked by their descriptors' sizes before any blob is
// fetched, so an artifact over the limit leaves nothing in the cache
// (FetchAll reads no more than a descriptor's size, and checks the digest).
func (c Cache) pullOCI(ctx context.Context, r Ref, want string, opts RegistryOptions, limit int64) (manifest []byte, sig []byte, err error) {
	repo, err := opts.repository(r)
	if err != nil {
		return nil, nil, err
	}
	ref := r.Tag
	if r.Digest != "" {
		ref = r.Digest
	}
	if want != "" {
		ref = want
	}
	desc, err := repo.Resolve(ctx, ref)
	if err != nil {
		return nil, nil, fmt.Errorf("resolve %s: %w", r.Raw, err)
	}
	if want != "" && desc.Digest.String() != want {
		return nil, nil, fmt.Errorf("%s: %w", r.Raw, mismatch(want, desc.Digest.String()))
	}
	if desc.Size < 0 || desc.Size > limit {
		return nil, nil, &ArchiveTooLargeError{Ref: r.Raw, Size: desc.Size, Limit: limit}
	}
	manifest, err = content.FetchAll(ctx, repo, desc)
	if err != nil {
		return nil, nil, fmt.Errorf("fetch %s: %w", r.Raw, err)
	}
	m, err := parseOCIManifest(manifest)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.Raw, err)
	}
	total := int64(0)
	for _, d := range append([]ocispec.Descriptor{m.Config}, m.Layers...) {
		if d.Size < 0 || d.Size > limit-total {
			// Compared as a remainder so that sizes near MaxInt64 cannot
			// overflow the sum.
			size := d.Size
			if size >= 0 && size <= math.MaxInt64-total {
				size += total
			}
			return nil, nil, &ArchiveTooLargeError{Ref: r.Raw, Size: size, Limit: limit}
		}
		total += d.Size
	}
	for _, d := range append([]ocispec.Descriptor{m.Config}, m.Layers...) {
		if _, err := c.Read(d.Digest.String()); err == nil {
			continue
		}
		b, err := content.FetchAll(ctx, repo, d)
		if err != nil {
			return nil, nil, fmt.Errorf("fetch %s blob %s: %w", r.Raw, d.Digest, err)
		}
		if _, err := c.Put(b, d.Digest.String()); err != nil {
			return nil, nil, err
		}
	}
	sig, err = fetchOCISignature(ctx, repo, desc.Digest.String())
	if err != nil {
		return nil, nil, err
	}
	return manifest, sig, nil
}

// fetchOCISignature returns the signature attached to digest, or nil.
func fetchOCISignature(ctx context.Context, repo *remote.Repository, digest string) ([]byte, error) {
	desc, err := repo.Resolve(ctx, sigTag(digest))
	if errors.Is(err, errdef.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look for a signature: %w", err)
	}
	b, err := content.FetchAll(ctx, repo, desc)
	if err != nil {
		return nil, fmt.Errorf("fetch signature: %w", err)
	}
	var m ociManifest
	if err := json.Unmarshal(b, &m); err != nil || m.ArtifactType != SignatureArtifactType || len(m.Layers) != 1 {
		return nil, fmt.Errorf("%s is not a toolhost plugin signature", sigTag(digest))
	}
	return content.FetchAll(ctx, repo, m.Layers[0])
}

// parseOCIManifest reads a plugin artifact's manifest.
func parseOCIManifest(b []byte) (ociManifest, error) {
	var m ociManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("not an OCI manifest: %w", err)
	}
	if m.ArtifactType != ArtifactType || m.Config.MediaType != MediaTypeConfig {
		return m, fmt.Errorf("not a toolhost plugin (artifactType %q, config %q; want %s and %s)", m.ArtifactType, m.Config.MediaType, ArtifactType, MediaTypeConfig)
	}
	for _, l := range m.Layers {
		if l.MediaType != MediaTypeModule || l.Annotations[ocispec.AnnotationTitle] == "" {
			return m, fmt.Errorf("layer %s is not a titled %s", l.Digest, MediaTypeModule)
		}
	}
	return m, nil
}

// ociSource makes the plugin source of a cached OCI artifact: config and
// manifest re-hashed, modules loaded straight from their cached layers
// with their digests checked by the loader.
func (c Cache) ociSource(manifest []byte) (wasm.Bundle, error) {
	m, err := parseOCIManifest(manifest)
	if err != nil {
		return wasm.Bundle{}, err
	}
	cfg, err := c.Read(m.Config.Digest.String())
	if err != nil {
		return wasm.Bundle{}, err
	}
	pm, err := wasm.ParseManifest(cfg)
	if err != nil {
		return wasm.Bundle{}, err
	}
	byTitle := map[string]ocispec.Descriptor{}
	for _, l := range m.Layers {
		byTitle[path.Clean(l.Annotations[ocispec.AnnotationTitle])] = l
	}
	src := wasm.Bundle{Manifest: pm, Dir: c.Path(Digest(manifest))}
	for _, mod := range pm.Modules {
		l, ok := byTitle[path.Clean(mod)]
		if !ok {
			return wasm.Bundle{}, fmt.Errorf("the artifact lacks the module %s its manifest lists", mod)
		}
		h, _ := hexOf(l.Digest.String())
		src.Modules = append(src.Modules, wasm.ModuleFile{Name: mod, Path: c.Path(l.Digest.String()), SHA256: h})
	}
	return src, nil
}

// verifyOCIBlobs re-hashes every cached blob of an artifact.
func (c Cache) verifyOCIBlobs(manifest []byte) error {
	m, err := parseOCIManifest(manifest)
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range append([]ocispec.Descriptor{m.Config}, m.Layers...) {
		if _, err := c.Read(d.Digest.String()); err != nil {
			errs = append(errs, err)
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

// SignOCI signs the artifact a tag points at (its manifest bytes) with a
// minisign key file and attaches the signature to it.
func SignOCI(ctx context.Context, raw, keyFile, password string, opts RegistryOptions) error {
	key, err := ReadSecretKey(keyFile, func() (string, error) { return password, nil })
	if err != nil {
		return err
	}
	return SignOCIWithKey(ctx, raw, key, opts)
}

// SignOCIWithKey is SignOCI with a key read by ReadSecretKey.
func SignOCIWithKey(ctx context.Context, raw string, key minisign.PrivateKey, opts RegistryOptions) error {
	r, err := ParseRef(raw, "")
	if err != nil {
		return err
	}
	if r.Kind != KindOCI {
		return fmt.Errorf("sign %q: not an oci:// reference", raw)
	}
	repo, err := opts.repository(r)
	if err != nil {
		return err
	}
	ref := r.Tag
	if r.Digest != "" {
		ref = r.Digest
	}
	desc, err := repo.Resolve(ctx, ref)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", raw, err)
	}
	manifest, err := content.FetchAll(ctx, repo, desc)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", raw, err)
	}
	if _, err := parseOCIManifest(manifest); err != nil {
		return fmt.Errorf("%s: %w", raw, err)
	}
	return PushSignature(ctx, raw, desc.Digest.String(), SignWithKey(key, manifest), opts)
}
