// Package shellperm decides what a bash command line needs permission for,
// on what bash will actually execute rather than on the text a model wrote
// (bash_analyze.go says how): the permission requests the bash tool asks
// before it runs a command (Requests), and that `toolhost permissions
// explain bash` shows.
//
// It is the bash tool's analyser, kept apart from the tool (package
// builtins runs the command, in its sandbox) because it is a subject of its
// own: a parser-driven walk over every construct that can run a program or
// change what a program does, tables of wrappers, programs and dangerous
// variables (bash_data.go, bash_programs.go, arity.go), and readers of the
// little languages commands carry (awk, sed, git's options). It imports
// runtime and runtime/permission only, so the CLI can ask it without the
// tools.
//
// Its tests are Unix's, as bash is: a corpus of command lines with the
// requests each must produce (testdata/bash_corpus.txt, -update rewrites
// it), a differential test against a real bash on Linux, and fuzzing of
// the analysis and of the awk and sed readers.
package shellperm

// PermissionBash is the permission a command is asked under, and the
// bash tool's id.
const PermissionBash = "bash"

// PermissionEdit is the permission a command that writes a file is asked
// under, as the edit tools are.
const PermissionEdit = "edit"
