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
// File system: allowed_paths are mounted by hostfns.Mount (mounts.go),
// not by Extism — as a Python tool's are — as package rootfs file
// systems, a writable one refusing changes that reach a folder granted
// read-only: every guest path is resolved inside an
// os.Root, so a symbolic link in a granted directory cannot take the guest
// out of it (Extism mounts with wazero's DirFS, which follows links
// anywhere). Package rootfs says why os.Root and not path cleaning.
//
// Calls (kernel.go, interrupt.go, pool.go, call.go): every guest runs on
// wazero directly. The Extism ABI's kernel — alloc, free, length,
// load/store, input, output, error, config, vars — is implemented in Go
// over a byte slice per instance, and the functions that reach the world
// (http_request, log_*, get_log_level) are package hostfns', so every
// Extism-PDK module works unchanged; exported functions are looked up
// once per instance. A call is stopped (timeout, cancellation) by a flag
// the module itself tests (interrupt.go, loopcheck.go, loopcost.go):
// every loop a branch repeats counts its iterations, weighed by its size,
// in a register and flushes the count to a budget every 1024, a function
// that calls others or has much code counts its entry, a bulk operation
// (memory.fill, memory.copy …) flushes its size first, and a flush traps
// when the flag is set — instead of wazero's WithCloseOnContextDone,
// which leaves native code at every loop iteration; a module the
// instrumenter cannot read, or with a start function (it runs before the
// flag exists), falls back to wazero's checks. BENCHMARKS.md has the
// figures.
//
// Why these libraries:
//   - github.com/tetratelabs/wazero runs the guests: pure Go, so toolhost
//     stays one static binary with no cgo; its compilation cache on disk
//     makes a known module cheap to load; its WASI preview 1 gives guests
//     files (mounted by mounts.go), clocks and stderr.
//   - The Extism ABI (not its Go SDK) is the guest contract beside
//     toolhost's own: it lets authors use any Extism PDK (Rust, JS,
//     Python, Zig, C, AssemblyScript …). github.com/extism/go-sdk is used
//     only by tests, as the baseline of BenchmarkCall and to check that
//     building an Engine changes no process-wide Extism setting: its
//     per-call machinery (a wasm kernel module reached through a new
//     exported-function handle and call stack on every alloc, load, store
//     and output_set) cost more than the guest's own work, and its log
//     level is process-wide.
//   - github.com/santhosh-tekuri/jsonschema/v6 (the project's patched copy
//     in third_party/jsonschema, as runtime uses for tool arguments)
//     checks a plugin's config values against its manifest's
//     config_schema (configcheck.go): the same validator and drafts for
//     tool arguments and plugin config, and its error tree tells which
//     key failed, so a secret's value need never be printed.
//
// As tool sources (runtime/source): ToolSource is the tool modules of the
// config directories; package plugins/pkg's Source loads plugins on the
// same Engine. A watching host drives both from its one loop
// (source.Follow), which compares the folders by size and modification
// time (toolWatch, PluginWatch) when an event or the timer wakes it.
//
// What it must not import: builtins or any front end (CLI, MCP server,
// agent loop); they hand its tools to runtime.Registry.
package wasm
