// Package search is the search engine behind the grep, glob and list
// tools: a parallel directory walk that honours ignore files the way
// ripgrep does (Walk), a path filter with ripgrep's --glob rules
// (MatchGlob), and a regular-expression search over the files of a tree
// (Compile, Grep) fast enough to stand beside ripgrep.
//
// It is kept apart from the tools (package builtins: their arguments,
// permissions, output and descriptions) because it is a subject of its
// own, with its own tests and benchmarks: how to walk a tree in as few
// system calls as possible (getdents64 into reused buffers, files opened
// through their directory's descriptor, walkdir_linux.go), how to match
// .gitignore as git does (ignore.go), and how to make Go's RE2 compete
// with ripgrep — literal needles found with vectorised byte searches
// (grep.go), a byte-run prefilter for patterns without one
// (grep_runs.go), and a lazily built DFA that only answers whether a line
// matches (grep_dfa.go). It knows no toolhost type: which symbolic links
// may be read is a LinkPolicy the caller hands in (builtins asks
// external_directory's rules), and what a result may show is the
// caller's to judge (File.Info, File.Target).
//
// The walk is hardened against a tree that changes under it: symbolic
// links are judged by where they lead, directories are opened inside the
// one they were listed in and files inside their directory without
// following a link, and nothing but regular files is read, opened without
// blocking (walk.go and grep_tree.go say how). The tests swap directories
// for links and files for FIFOs mid-walk (walk_unix_test.go), and compare
// the directory reader with os.ReadDir on the Go tree (walkdir_linux_test.go).
//
// Benchmarks: BenchmarkGrepVsRipgrepGoroot searches the Go tree with Grep
// and with ripgrep in turn and reports the ratio (BENCHMARKS.md).
package search
