// Package layout holds checks on the repository as a whole, run as its
// tests: rules about the shape of the code that no single package can
// check about itself. It has no code of its own.
//
// The rules checked today:
//
//   - No Go file (tests, test data, templates and third_party/ — copies
//     of other projects kept as they wrote them — aside) is longer than
//     500 lines unless its package's documentation names the file and
//     says why it is kept whole, in one paragraph of a fixed form: "Files
//     over 500 lines, and why they stay whole:" and then, separated by
//     semicolons, each file's name followed by a clause giving its
//     reason. A long file is usually two things that want to be two
//     files; when it is not — a contract suite that reads as one list, a
//     port kept line for line beside its original — the package doc is
//     where the next engineer learns so.
//   - The packages form layers, declared as data in layers_test.go:
//     foundation helpers < runtime (with the tool-source contract,
//     runtime/source) < engines and sources (builtins, plugins/...,
//     mcp/client, ...) < host < front ends (CLI, MCP server, agent loop,
//     inbox, programs). No package's code imports one from a layer above
//     it, and every package is in a layer, so a new one is placed on
//     purpose.
//   - No code of the module imports text/template or html/template, or
//     asks cobra for a custom help, usage or version template
//     (templates_test.go): executing a template may call any method by
//     name, which keeps 5 MB of otherwise dead methods in the binary.
package layout
