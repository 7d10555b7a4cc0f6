// Package runtime is toolhost's tool contract and the machinery every tool
// call goes through: the Tool interface and its call Context, the wrapper
// (the gate, argument validation, permission plumbing, output truncation,
// hooks, panic recovery, logging), the Registry that assembles tools from
// every source, the built-in agents and their permission rules.
//
// The gate (gate.go) is the wrapper's first step: every route a call can
// take ends in Registry.Call, so a tool an agent is not offered is refused
// there whatever the route, and a tool that declares no permission check of
// its own (Definition.ChecksOwnPermission) is checked against its id's
// permission before it runs.
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
