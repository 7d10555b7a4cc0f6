// Package pkg shares plugins as packages: it resolves references
// (oci://registry/repo:tag, https://…/x.tar.gz, local directories and
// archives), downloads them into a content-addressed cache
// ($XDG_CACHE_HOME/toolhost/plugins/sha256/<hex>), pins what was agreed to
// in toolhost.lock (digest, size, version, capabilities granted,
// signature), packs reproducible archives, publishes them to OCI
// registries, and signs and verifies them with minisign keys.
//
// The rule it enforces: after `toolhost plugin add`, a host only ever
// loads the bytes the lock names, from the cache, without the network.
// Anything whose digest differs from the lock is refused with both
// digests; a new version asking for more capabilities than were granted
// needs a person's consent again.
//
// Why these libraries:
//   - oras.land/oras-go/v2: the reference OCI artifact client (push, pull,
//     tags, auth, Docker credential helpers through
//     registry/remote/credentials), used by the ORAS CLI and Helm, so any
//     OCI registry that stores artifacts works.
//   - aead.dev/minisign: a maintained Go implementation of minisign, whose
//     small keys ("RWQ…") fit in a config file and whose signatures the
//     minisign command line verifies too. Secret keys are encrypted in
//     minisign's own format (scrypt at minisign's cost), so keys move
//     freely between toolhost and minisign in both directions.
//   - archive/tar and compress/gzip from the standard library: a plugin
//     archive is a plain .tar.gz anyone can inspect.
//
// What it must not import: the runtime registry or any front end. It
// hands wasm.Bundle values to whoever assembles the host (package host).
package pkg
