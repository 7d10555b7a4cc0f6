// Package cli is the toolhost command line: one file per command, each
// with an Options struct, a NewCmdX constructor that parses flags, and a
// runX function that does the work, so behaviour is testable without
// cobra (the GitHub CLI's layout). Errors map to exit codes in one place,
// ExitCode: 0 success, 1 the tool failed, 2 usage error, 3 permission denied
// or rejected.
//
// Cobra (github.com/spf13/cobra) because it is the de-facto standard for Go
// CLIs: help with examples, completion and nested commands for free.
package cli
