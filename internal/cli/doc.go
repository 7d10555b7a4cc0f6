// Package cli is the toolhost command line: one file per command, each
// with an Options struct, a NewCmdX constructor that parses flags, and a
// runX function that does the work, so behaviour is testable without
// cobra (the GitHub CLI's layout). Errors are typed values, and their kind
// decides, in one table (exit.go), both the exit code (0 success, 1 the tool
// failed, 2 usage error, 3 permission denied or rejected or the tool not
// offered, 4 a question nobody answered) and the words a person reads: the
// errors' own texts speak to a model, for MCP and the agent loop. Work a
// person waits on (an engine fetched, a tool bundled or built, a module
// compiled, a plugin fetched) is reported by internal/observe/progress, which every
// command puts in its context: a line rewritten in place on a terminal,
// log records elsewhere.
//
// Cobra (github.com/spf13/cobra) because it is the de-facto standard for Go
// CLIs: help with examples, completion and nested commands for free.
package cli
