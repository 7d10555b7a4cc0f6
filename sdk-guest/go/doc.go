// Package tool is the Go guest SDK for toolhost wasm tools: write a typed
// handler, and the module speaks toolhost's ABI ("toolhost-abi 1",
// docs/abi.md in the toolhost repository) without any ABI code.
//
//	//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen
//	package main
//
//	import tool "github.com/toolhost/toolhost/sdk-guest/go"
//
//	type Args struct {
//		Name string `json:"name" jsonschema:"description=Who to greet"`
//	}
//
//	var _ = tool.Main("Greets someone.", func(ctx *tool.Context, a Args) (tool.Result, error) {
//		return tool.Text("hello " + a.Name), nil
//	})
//
//	func main() {}
//
// Build with the standard Go toolchain as a WASI reactor:
//
//	go generate && GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o greet.wasm
//
// (a plain build exports _start, which runs main and exits, and traps on the
// next call).
//
// Why it is built this way:
//   - It talks the raw Extism ABI through //go:wasmimport instead of
//     github.com/extism/go-pdk, so it has no dependencies at all and builds
//     offline; the ABI it needs is a dozen functions.
//   - Go can only export functions named at compile time (//go:wasmexport),
//     and the exports' names carry the tools' names (create_description,
//     create_schema, create_execute), so cmd/toolhost-gen reads the package's
//     tool.Define calls and writes exports_gen.go. Authors run it through
//     go generate; `toolhost tool build` runs it for them.
//   - The schema is generated from the Args struct by a small reflector
//     (schema.go) using the same `jsonschema:"description=…"` tags as
//     toolhost's native tools, so schema and decoding cannot drift.
package tool
