package builtins

import "github.com/toolhost/toolhost/runtime/permission"

// alwaysFor is what an "always" answer approves for a request about one
// path: the file itself, or a directory and everything below it. It is the
// narrowest rule that saves the person from being asked again about the
// same thing; "*" would approve reading .env because README.md was read.
// Names with characters the rule syntax treats specially are made literal
// (permission.Literal), so a file named `*` approves only itself.
func alwaysFor(rel string, isDir bool) []string {
	if isDir {
		return []string{permission.Literal(rel), permission.Under(rel)}
	}
	return []string{permission.Literal(rel)}
}

// alwaysForEach is alwaysFor for every pattern of a request about one
// file (filePatterns: the name given and, through a link, the target).
func alwaysForEach(patterns []string, isDir bool) []string {
	var out []string
	for _, p := range patterns {
		out = append(out, alwaysFor(p, isDir)...)
	}
	return out
}

// alwaysForAll is alwaysFor for the files of one request (apply_patch).
func alwaysForAll(rels []string) []string {
	out := make([]string, 0, len(rels))
	for _, r := range rels {
		out = append(out, permission.Literal(r))
	}
	return out
}
