package shellperm

import (
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Scripts: a file run as a script is code the analysis cannot read, and a
// file the same line writes, copies, links or chmods and then runs is code
// the line itself chose. Both are holes.

// execFile records a file run as a program or script.
func (a *analyzer) execFile(t token, display string) {
	if !t.known() {
		return // the request is a Hole already
	}
	e := execRef{pattern: clip(display)}
	for _, wd := range a.out.workdirs {
		e.cands = append(e.cands, a.out.resolve(joinUnclean(wd, t.value)))
		if filepath.IsAbs(t.value) {
			break
		}
	}
	a.out.execs = append(a.out.execs, e)
}

// scriptsWritten makes the request of every file run that the command
// line also names as a path (writes it, copies to it, makes it
// executable), or that may be a file it writes somewhere unknown, a Hole:
// its contents are not what anyone was shown.
func (an *bashAnalysis) scriptsWritten() {
	// Index the paths once: a long line has many of both.
	named := map[string]bool{}     // every path the line names
	parents := map[string]bool{}   // those that may be a directory a file is copied into (cp x .)
	baseNames := map[string]bool{} // their last elements, for commands found through a changed PATH
	var globs []string             // files a program writes in a directory (tar -x)
	unknownWrite, gitWrite := false, an.copiedUnknown
	for _, p := range an.Paths {
		if p.Abs == "" {
			unknownWrite = unknownWrite || p.Write
			continue
		}
		if strings.ContainsAny(filepath.Base(p.Abs), "*?[") {
			globs = append(globs, p.Abs)
		}
		named[p.Abs] = true
		baseNames[filepath.Base(p.Abs)] = true
		if an.named[p.Abs] {
			parents[p.Abs] = true
		}
		// .git/… for a work tree; config and hooks/ for a repository
		// named by --git-dir or -C.
		gitWrite = gitWrite || ((p.Write || an.copied[p.Abs]) && (strings.Contains(p.Abs, "/.git/") || strings.HasSuffix(p.Abs, "/.git") ||
			filepath.Base(p.Abs) == "config" || strings.Contains(p.Abs, "/hooks/")))
	}
	mark := func(i int, why string) {
		c := &an.Commands[i]
		c.Template, c.Always, c.Reason = permission.Hole, "", why
	}
	const whyWritten = "runs a file this command line writes or changes, whose contents cannot be read before it runs"
	for _, e := range an.execs {
		hit := unknownWrite
		if e.anyGitDir {
			hit = hit || gitWrite
		}
		for _, c := range e.cands {
			hit = hit || named[c] || parents[filepath.Dir(c)] || len(globs) > maxWorkdirs
			for _, g := range globs[:min(len(globs), maxWorkdirs)] {
				hit = hit || permission.Match(g, c)
			}
		}
		if e.pathName != "" {
			// Only a PATH the line changes can find a file it wrote.
			hit = an.pathSet && (baseNames[e.pathName] || unknownWrite)
		}
		if i, ok := an.commandIndex[e.pattern]; ok && hit {
			if e.anyGitDir {
				mark(i, "git runs hooks and obeys configuration in .git, which this command line writes")
			} else {
				mark(i, whyWritten)
			}
		}
	}
	if an.pathSet {
		// With PATH changed, a bare name may find a file the line wrote.
		for i, c := range an.Commands {
			if name, _, _ := strings.Cut(c.Pattern, " "); !strings.Contains(name, "/") && (baseNames[name] || unknownWrite) {
				mark(i, "the command line changes PATH and writes a file by this name, which PATH may now find")
			}
		}
	}
}
