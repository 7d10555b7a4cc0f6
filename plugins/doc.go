// Package plugins runs WebAssembly custom tools: it discovers .wasm modules
// in the config directories' tool/ and tools/ folders, turns each exported
// tool into a runtime.Tool, and runs calls in a sandbox with limits. The
// wire contract with guests is docs/abi.md ("toolhost-abi 1"); the host
// functions live in package hostfns.
//
// Life of a module: Discover reads the file and hashes it; a description
// and schema cache keyed by that sha256 (CacheDir/meta) lets a warm listing
// compile nothing. A cold module built by `toolhost tool build` lists its
// tools in a toolhost.tools custom section (toolsection.go), read from the
// binary without compiling and believed only when it names exactly the
// tools the module exports. Any other cold module is compiled (modules in
// parallel), its exports tell its tools, and each tool's description and
// schema are read by calling the guest. The first call compiles the module
// if listing did not, with wazero's compilation cache on disk
// (CacheDir/compiled, filled by `tool build` through EmbedToolList) making
// that cheap; a long-running host compiles loaded modules in the
// background (CompileInBackground), and a call waits only for its own. Calls take an instance from a pool
// per compiled module and give it back; an instance that saw a trap, a
// timeout or a host-function failure is discarded.
//
// Plugins (LoadPlugin, manifest.go, hooks.go, compat.go) are modules with
// a toolhost-plugin.json manifest, from the config directories' plugin/
// folders or from packages (package plugins/pkg resolves, caches, locks
// and verifies them). Their modules may export tools, hooks that run on
// every tool call as a runtime.Hook (tool_execute_before/after,
// tool_definition, event), and mcp.run/hyper-mcp describe/call tools;
// they run in the same sandbox, with the capabilities the lock granted.
//
// File system: allowed_paths are mounted by mounts.go, not by Extism,
// as package rootfs file systems: every guest path is resolved inside an
// os.Root, so a symbolic link in a granted directory cannot take the guest
// out of it (Extism mounts with wazero's DirFS, which follows links
// anywhere). Package rootfs says why os.Root and not path cleaning.
//
// Why these libraries:
//   - github.com/extism/go-sdk, on github.com/tetratelabs/wazero: Extism's
//     ABI lets authors use any Extism PDK (Rust, JS, Python, Zig, C …), and
//     wazero is pure Go, so toolhost stays one static binary with no cgo.
//     We use the Extism SDK's CompiledPlugin and instances directly rather
//     than Plugin.Call on fresh plugins, which re-instantiates per call.
//   - No file-watching library: the watcher polls size and mtime once a
//     second, which is dependency-free, works on every OS and network file
//     system, and is plenty for folders holding a handful of files.
//
// What it must not import: builtins or any front end (CLI, MCP server,
// agent loop); they hand its tools to runtime.Registry.
package plugins
