// Package layout holds checks on the repository as a whole, run as its
// tests: rules about the shape of the code that no single package can
// check about itself. It has no code of its own.
//
// The rule checked today: no Go file (tests, test data, templates and
// third_party/ — copies of other projects kept as they wrote them — aside)
// is longer than 500 lines unless its package's documentation names
// the file and says why it is kept whole, in one paragraph of a fixed form:
// "Files over 500 lines, and why they stay whole:" and then, separated by
// semicolons, each file's name followed by a clause giving its reason. A long file is usually two
// things that want to be two files; when it is not — a contract suite that
// reads as one list, a port kept line for line beside its original — the
// package doc is where the next engineer learns so.
package layout
