package builtins

// Instruction files, as OpenCode's read tool loads them: a directory of a
// project may hold an AGENTS.md (or CLAUDE.md) that says how to work on
// the files under it. The host gives the model the project root's file at
// the start; the ones further down only matter once the model looks there,
// so reading a file brings along those found between it and the root, each
// once per session, in a <system-reminder> block after the content.
//
// "Once per session" is kept in the session store, next to the read
// stamps, so it holds across calls and processes (`toolhost call --session`)
// the way the stamps do; claiming a file is one atomic Update, so two
// parallel reads under one directory do not both bring it. Unlike the
// stamps, a call without a session claims nothing (claimInstruction).
//
// An instruction file is text the model reads without having asked for
// it, so it is only read when the read rules allow that path outright and
// it lies, links resolved, inside the project; anything else is skipped.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/runtime"
)

// instructionNamespace is the session-store namespace of instruction files
// already given to the model: key = absolute path, value = the file whose
// read brought it.
const instructionNamespace = "instructions"

// instructionMaxBytes caps one instruction file in the read output; a
// longer one is cut with a note saying how to read the rest.
const instructionMaxBytes = 32 << 10

// instruction is one instruction file given to the model.
type instruction struct {
	path    string
	content string
}

// instructionsFor returns the instruction files to show with a read of
// path (absolute): for each directory from path's up to, not including,
// the project root or the working directory, the first file named in the
// "instructions" config that exists there, nearest first; minus path
// itself, files the rules do not let the model read, and files this
// session was already given. Each one returned is claimed for the session.
func instructionsFor(ctx context.Context, tc *runtime.Context, path string) ([]instruction, error) {
	names := tc.Config.InstructionFiles()
	root := projectDir(tc)
	if len(names) == 0 || root == "" {
		return nil, nil
	}
	root = filepath.Clean(root)
	stop := map[string]bool{root: true}
	if tc.Directory != "" {
		stop[filepath.Clean(tc.Directory)] = true
	}
	realRoot := "" // resolved when a file is found: most reads find none
	var out []instruction
	for dir := filepath.Dir(path); !stop[dir] && fspath.Within(root, dir); {
		if found := findInstruction(dir, names); found != "" && found != path {
			if realRoot == "" {
				realRoot = resolvePath(root)
			}
			in, ok, err := loadInstruction(ctx, tc, realRoot, found, path)
			if err != nil {
				return out, err
			}
			if ok {
				out = append(out, in)
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return out, nil
}

// findInstruction returns the first of names that is a regular file (links
// followed) in dir, or "".
func findInstruction(dir string, names []string) string {
	for _, n := range names {
		p := filepath.Join(dir, n)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// loadInstruction reads the instruction file p and claims it for the
// session. ok is false when it is skipped: outside the project once links
// are resolved, not allowed by the read rules, binary or empty, or
// already claimed.
func loadInstruction(ctx context.Context, tc *runtime.Context, realRoot, p, readPath string) (instruction, bool, error) {
	info, err := os.Stat(p)
	if err != nil || !fspath.Within(realRoot, resolvePath(p)) || !instructionAllowed(ctx, tc, p, info) {
		return instruction{}, false, nil
	}
	content, err := readInstruction(tc, p, info)
	if err != nil || strings.TrimSpace(content) == "" {
		if err != nil && tc.Logger != nil {
			tc.Logger.Warn("instruction file skipped", "path", p, "err", err)
		}
		return instruction{}, false, nil
	}
	fresh, err := claimInstruction(ctx, tc, p, readPath)
	if err != nil || !fresh {
		return instruction{}, false, err
	}
	return instruction{path: p, content: content}, true, nil
}

// readInstruction reads up to instructionMaxBytes of p, confined to the
// project like every read, and refuses binary content and a file that is
// not the one judged (info) any more.
func readInstruction(tc *runtime.Context, p string, info fs.FileInfo) (string, error) {
	f, err := openChecked(tc, p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if !openedIs(f, info) {
		return "", errors.New("replaced while it was being checked")
	}
	b, err := io.ReadAll(io.LimitReader(f, instructionMaxBytes+1))
	if err != nil {
		return "", err
	}
	if looksBinary(b[:min(len(b), readBinarySample)]) {
		return "", errors.New("binary content")
	}
	s := strings.TrimPrefix(string(b), utf8BOM)
	if len(b) > instructionMaxBytes {
		s = strings.ToValidUTF8(s[:instructionMaxBytes], "")
		s += fmt.Sprintf("\n\n(Cut at %d KB; read %s for the rest.)", instructionMaxBytes>>10, p)
	}
	return s, nil
}

// instructionAllowed reports whether the read rules let the model read p
// without asking (outrightReads); info is p's Stat.
func instructionAllowed(ctx context.Context, tc *runtime.Context, p string, info fs.FileInfo) bool {
	return newOutrightReads(ctx, tc).allowed(p, info)
}

// claimInstruction records that the session was given p; fresh is false
// when it already had been. A call without a session (a one-shot `toolhost
// call`) belongs to no conversation that could remember the file, so it
// is given it every time and nothing is recorded.
func claimInstruction(ctx context.Context, tc *runtime.Context, p, by string) (fresh bool, err error) {
	if tc.SessionID == "" {
		return true, nil
	}
	store, err := sessionStore(tc)
	if err != nil {
		return false, fmt.Errorf("record instructions %s: %w", p, err)
	}
	err = store.Update(ctx, storeSession(tc), instructionNamespace, p, func(old []byte, exists bool) ([]byte, error) {
		if exists {
			return old, nil
		}
		fresh = true
		return []byte(by), nil
	})
	if err != nil {
		return false, fmt.Errorf("record instructions %s: %w", p, err)
	}
	return fresh, nil
}

// claimIfInstruction marks path, just shown whole to the model, as given
// when it is the instruction file of its directory, so a later read below
// it does not repeat it.
func claimIfInstruction(ctx context.Context, tc *runtime.Context, path string) error {
	root := projectDir(tc)
	if root == "" || !fspath.Within(filepath.Clean(root), path) {
		return nil
	}
	names := tc.Config.InstructionFiles()
	dir := filepath.Dir(path)
	// Most reads are of other files: tell by the name before asking the
	// file system which instruction file the directory has.
	if !slices.ContainsFunc(names, func(n string) bool { return filepath.Join(dir, n) == path }) {
		return nil
	}
	if findInstruction(dir, names) != path {
		return nil
	}
	_, err := claimInstruction(ctx, tc, path, path)
	return err
}

// withInstructions appends the instruction files for a read of path to
// res: a <system-reminder> block after the output, and their paths in
// metadata "loaded".
func withInstructions(ctx context.Context, tc *runtime.Context, path string, res runtime.Result) (runtime.Result, error) {
	ins, err := instructionsFor(ctx, tc, path)
	if err != nil || len(ins) == 0 {
		return res, err
	}
	var b strings.Builder
	loaded := make([]string, 0, len(ins))
	b.WriteString(res.Output)
	b.WriteString("\n\n<system-reminder>\n")
	for i, in := range ins {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "Instructions from: %s\n%s", in.path, strings.TrimRight(in.content, "\n"))
		loaded = append(loaded, in.path)
	}
	b.WriteString("\n</system-reminder>")
	res.Output = b.String()
	res.Metadata["loaded"] = loaded
	return res, nil
}
