// Package runtime is toolhost's tool contract and the machinery every tool
// call goes through: the Tool interface and its call Context, the traits a
// tool declares, the Registry that keeps tools from every source, the chain
// of steps that wraps every call, the built-in agents and their permission
// rules.
//
// Where each idea lives:
//   - tool.go, context.go, define.go: the contract for writing a tool.
//   - traits.go: what a tool declares about itself (Traits, through the
//     optional Declarer interface, io/fs style): the permission that
//     governs it and the patterns the gate asks, whether it checks its own
//     permission, where it is offered (a model, a flag, a person to ask),
//     its effects (MCP hints). Nothing in this module knows a tool by its
//     name; a tool that shares a built-in's name shares none of its rules.
//   - table.go: the tools of every source under (source, id), resolved by
//     precedence runtime > mcp > plugin > python > js > wasm > builtin, so
//     removing one source's tool reveals the next; Generation and the
//     change notification (changes.go) tell front ends to list again. The
//     sources themselves implement the contract in runtime/source.
//   - grants.go: which "wasm" grants a tool's file may not receive
//     (GrantProblems), reported once by a host and by `toolhost doctor`.
//   - prepare.go: initialising a tool per agent and model, cached.
//   - call.go, chain.go, steps.go, gate.go: Registry.Call and the chain it
//     runs — logging, the gate's two questions (offered? its own
//     permission?), hooks before, validation, hooks after, truncation,
//     panic recovery, the tool — each step a small function with its own
//     tests, composed in one place (Registry.run). Tools that call tools get
//     a Caller, tools that read rules a Rulebook, never the Registry.
//   - trace.go: the CallTracer a program hands the registry (TraceCalls)
//     to put a span around every call, permission decisions included; the
//     runtime imports no tracing library.
//
// It is named after what it is — the runtime tools run in — as
// k8s.io/apimachinery/pkg/runtime is; import the standard library's runtime
// under an alias where both are needed.
//
// Why these libraries:
//   - JSON Schema validation uses github.com/santhosh-tekuri/jsonschema/v6:
//     maintained, drafts 4 through 2020-12, and every error carries its JSON
//     pointer, so the model is told exactly which argument to fix. The design
//     card named xeipuuv/gojsonschema, but it has had no release since 2019
//     and stops at draft-07, while MCP's current spec defaults to 2020-12.
//   - Schemas for Go tools are generated from their argument structs with
//     github.com/invopop/jsonschema, so schema and decoding cannot drift.
//
// What it must not import: builtins, plugins, hostfns, or any front end.
// Those are handed to the Registry by the program that assembles them, so the
// dependency arrows point one way: front ends → registry → wrapper →
// permission → tools.
package runtime
