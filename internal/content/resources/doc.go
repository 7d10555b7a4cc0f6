// Package resources serves files as MCP resources: a project's
// resources/ folder and the full outputs toolhost saved when it truncated
// a tool's output. It knows nothing of MCP's wire format; the MCP server
// (mcp/server) lists and reads through it, and prompts embed files with
// it (@uri in a command template).
//
// URIs come from paths, so a folder is all a user writes:
// resources/<scheme>/<rest> is <scheme>://<rest> (resources/docs/guide.md
// is docs://guide.md), and a file directly in resources/ is
// resource://<name>. A path with {name} placeholders in its segments is a
// resource template (resources/test/template/{id}/data is
// test://template/{id}/data): reading a URI that matches it reads that one
// file and replaces each {name} in its text with the value from the URI
// (JSON-escaped when the file is JSON), so one file serves every id.
//
// Every read goes through an os.Root opened on the folder: a path with
// "..", an absolute path, or a symbolic link leading out of the folder is
// refused by the kernel's walk, not by string checks; hidden files
// (".name") are neither listed nor read. Reads are capped at MaxRead
// bytes. Template values are taken from the URI only to fill the text,
// never to pick a file.
//
// It must not import mcp or runtime: the MCP server and the prompt
// expander both use it.
package resources
