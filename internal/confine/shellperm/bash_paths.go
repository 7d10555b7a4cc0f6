// Paths a command line touches: path commands' operands, redirection
// targets, cd targets, resolved the way the kernel resolves them.

package shellperm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"mvdan.cc/sh/v3/syntax"
)

// pathOperands checks the operands of a path command.
func (a *analyzer) pathOperands(base string, args []token) {
	skipFirst := base == "chmod" || base == "chown" || base == "chgrp"
	isCd := base == "cd" || base == "pushd"
	if isCd && !slices.ContainsFunc(args, func(t token) bool { return !t.known() || !strings.HasPrefix(t.value, "-") || t.value == "-" }) {
		// cd alone goes home.
		home, err := os.UserHomeDir()
		if a.homeAssigned || err != nil {
			a.out.addPath(bashPath{Text: "~", IsDir: true})
		} else {
			a.out.addPath(bashPath{Abs: a.out.resolve(home), Text: "~", IsDir: true})
		}
		return
	}
	options := true
	for _, t := range args {
		if options && t.known() {
			if t.value == "--" {
				options = false
				continue
			}
			if strings.HasPrefix(t.value, "-") && t.value != "-" {
				continue
			}
			if base == "chmod" && strings.HasPrefix(t.value, "+") {
				continue
			}
		}
		if skipFirst {
			skipFirst = false
			continue
		}
		if isCd && t.known() && (t.value == "-" || strings.HasPrefix(t.value, "+")) {
			// The previous directory: $OLDPWD, which a fresh shell takes
			// from toolhost's environment.
			a.out.addPath(bashPath{Text: t.display, IsDir: true})
			continue
		}
		if copyCommands[base] {
			a.copied(t)
		}
		a.path(t, base == "tee", isCd)
	}
}

// copyCommands put files where their operands say, hooks and git
// configuration among the places.
var copyCommands = map[string]bool{"cp": true, "mv": true, "ln": true, "install": true}

// copied records an operand of a copying command.
func (a *analyzer) copied(t token) {
	if !t.known() || t.glob || t.braces {
		a.out.copiedUnknown = true
		return
	}
	if a.out.copied == nil {
		a.out.copied = map[string]bool{}
	}
	for _, wd := range a.out.workdirs {
		a.out.copied[a.out.resolve(joinUnclean(wd, t.value))] = true
		if filepath.IsAbs(t.value) {
			break
		}
	}
}

// bashDevices are the only paths exempt from checks, compared after
// cleaning: where output is thrown away or passed on.
var bashDevices = []string{"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/random", "/dev/urandom"}

func isBashDevice(p string) bool {
	c := filepath.Clean(p)
	if slices.Contains(bashDevices, c) {
		return true
	}
	if n, ok := strings.CutPrefix(c, "/dev/fd/"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		return true
	}
	return false
}

// reopensDescriptor: opening these opens the file behind a descriptor of
// the shell anew (they are links to /proc/self/fd/N), in the mode asked
// for, not the mode the descriptor was opened with.
func reopensDescriptor(p string) bool {
	c := filepath.Clean(p)
	return c == "/dev/stdin" || c == "/dev/stdout" || c == "/dev/stderr" || strings.HasPrefix(c, "/dev/fd/")
}

// path records a path operand or redirection target.
func (a *analyzer) path(t token, write, isDir bool) {
	unresolved := !t.known() || t.braces
	if !unresolved && t.glob {
		// A glob in the last element is a set of files in a known
		// directory; anywhere else the directory itself is unknown.
		unresolved = strings.ContainsAny(filepath.Dir(t.value), "*?[")
	}
	if !unresolved && !filepath.IsAbs(t.value) && a.out.cwdUnknown {
		unresolved = true
	}
	if unresolved {
		a.out.addPath(bashPath{Text: t.display, Write: write, IsDir: isDir})
		return
	}
	if isBashDevice(t.value) {
		if !write || !a.out.readsFile || !reopensDescriptor(t.value) {
			return
		}
		// `cmd <f >/dev/stdin` writes f: which file is unknown here.
		a.out.addPath(bashPath{Text: t.display, Write: true})
		return
	}
	isCd := isDir
	isDir = isDir || strings.HasSuffix(t.value, "/")
	for _, wd := range a.out.workdirs {
		if isDir && a.madeBy(wd, t.value) {
			continue // the directory this very cd leads to
		}
		abs := a.out.resolve(joinUnclean(wd, t.value))
		if !isCd {
			// Not where the shell goes but a file or a directory files
			// may be copied into (cp x dir/).
			if a.out.named == nil {
				a.out.named = map[string]bool{}
			}
			a.out.named[abs] = true
		}
		a.out.addPath(bashPath{Abs: abs, Text: t.display, Write: write, IsDir: isDir})
		if filepath.IsAbs(t.value) {
			break
		}
	}
}

// madeBy reports whether workdir wd is where cd p leads from another
// candidate: a cd's own operand is resolved against where the shell was
// before it, not after.
func (a *analyzer) madeBy(wd, p string) bool {
	if filepath.IsAbs(p) {
		return false
	}
	for _, w0 := range a.out.workdirs {
		if w0 != wd && a.out.resolve(joinUnclean(w0, p)) == wd {
			return true
		}
	}
	return false
}

// redirects checks a statement's redirections: every operator that can
// write a file, and the reads.
func (a *analyzer) redirects(s *syntax.Stmt) {
	for _, r := range s.Redirs {
		if r.Word == nil {
			continue
		}
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && a.heredocAmbiguous(r) {
			// bash ends a here-document inside $( ) at a line like
			// "EOF)", where the parser reads on: the two would disagree
			// on which lines are commands.
			a.unresolvedCommand(a.text(s))
		}
		var write bool
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut, syntax.RdrAllClob, syntax.AppAllClob:
			write = true
		case syntax.RdrIn:
		case syntax.DplOut, syntax.DplIn:
			// >&2, >&-, <&0 duplicate descriptors; >& file writes a file.
			if v, ok := staticString(r.Word); ok && (v == "-" || strings.Trim(v, "0123456789") == "" || strings.Trim(strings.TrimSuffix(v, "-"), "0123456789") == "") {
				continue
			}
			write = r.Op == syntax.DplOut
		default:
			continue // here-documents and here-strings: no file
		}
		if onlyProcSubst(r.Word) {
			continue // >(cmd): a pipe to a command that has its own request
		}
		a.path(a.token(r.Word), write, false)
	}
}

// heredocAmbiguous reports a here-document with a body line that starts
// with its delimiter but is not exactly it: bash may end the document
// there (it does for "EOF)" inside a command substitution).
func (a *analyzer) heredocAmbiguous(r *syntax.Redirect) bool {
	delim, ok := staticString(r.Word)
	if !ok {
		return true
	}
	if r.Hdoc == nil {
		return false
	}
	for _, line := range strings.Split(a.text(r.Hdoc), "\n") {
		if r.Op == syntax.DashHdoc {
			line = strings.TrimLeft(line, "\t")
		}
		if line != delim && strings.HasPrefix(line, delim) {
			return true
		}
	}
	return false
}

func onlyProcSubst(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	_, ok := w.Parts[0].(*syntax.ProcSubst)
	return ok
}

// joinUnclean joins a relative path to a base without cleaning it: "lnk/.."
// must be resolved after lnk is, as the kernel does, not removed as text.
func joinUnclean(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return base + string(filepath.Separator) + p
}

// maxSymlinks is the kernel's limit on links followed in one lookup.
const maxSymlinks = 40

// resolveOnDisk resolves p the way the kernel does: element by element,
// following each symlink as it is met and applying ".." to the resolved
// directory. Elements that do not exist are appended as text, cleaned.
func resolveOnDisk(p string) string {
	if !filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	resolved, _ := fspath.Resolve(p, maxSymlinks)
	return resolved
}
