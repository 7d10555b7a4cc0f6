// Package release holds what the release pipeline (.goreleaser.yaml,
// .ci/release) needs beside GoReleaser, written here so that a release
// needs nothing that must be downloaded from outside the Go module proxy:
//
//   - SBOM: a CycloneDX document of a built binary, read from the build
//     information the Go linker embeds (what `go version -m` prints). The
//     usual generator, syft, is a large build of its own; the binary's own
//     record of its modules is exact for a Go program, and nothing else is
//     linked into a static (CGO_ENABLED=0) binary.
//   - Image: the container image as an OCI image layout (a directory any
//     OCI tool copies to a registry), built without a Docker daemon from the
//     release binaries, with the same file system, user and entry point as
//     the Dockerfile.
//
// cmd/toolhost-release is the command GoReleaser and .ci/release run.
// Signatures are made by the released binary itself (`toolhost plugin
// sign`, minisign), and install.sh at the repository root is the install
// script; install_test.go here tests it against a served release.
package release
