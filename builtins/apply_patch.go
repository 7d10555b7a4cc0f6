package builtins

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

//go:embed apply_patch.txt
var applyPatchDescription string

// applyPatchParams are the apply_patch tool's arguments.
type applyPatchParams struct {
	PatchText string `json:"patchText" jsonschema:"description=The full patch text that describes all changes to be made"`
}

// ApplyPatch returns the apply_patch tool: add, delete, update and move
// files with one patch in the "*** Begin Patch" format (patch_parse.go).
//
// Every hunk is verified against the files, in memory, before anything is
// written; a later hunk of the same file sees the result of the earlier
// one. The edit permission is asked once with the combined diff. If writing
// then fails part way (a full disk, a permission error), the files already
// written are restored, so a patch applies completely or not at all.
// Output lists "A", "M" or "D" and the path of each file changed, then,
// as OpenCode's does, the language servers' errors in each changed file
// and in up to 5 others (diagnostics.go); metadata: diff, files (each
// with OpenCode's filediff) and diagnostics.
func ApplyPatch() runtime.Tool {
	return runtime.Declare(runtime.Define("apply_patch", applyPatchDescription, runApplyPatch), applyPatchTraits)
}

// applyPatchTraits: governed by "edit", which it asks for each path itself;
// offered only to the models that edit with it (usesApplyPatch); overwrites.
var applyPatchTraits = runtime.Traits{
	Permission:          "edit",
	ChecksOwnPermission: true,
	Available:           applyPatchAvailable,
	Hints:               &runtime.Hints{Destructive: true},
}

// fileState is one file as the patch leaves it (or as it was).
type fileState struct {
	exists  bool
	content string
}

// patchChange is what one hunk did, for the output and metadata.
type patchChange struct {
	kind       string // "add", "update", "move", "delete"
	path, move string // absolute paths
	before     string
	after      string
}

func runApplyPatch(ctx context.Context, p applyPatchParams, tc *runtime.Context) (runtime.Result, error) {
	if p.PatchText == "" {
		return runtime.Result{}, errors.New("patchText is required")
	}
	hunks, err := parsePatch(p.PatchText)
	if err != nil {
		return runtime.Result{}, fmt.Errorf("apply_patch verification failed: %w", err)
	}
	if len(hunks) == 0 {
		norm := strings.TrimSpace(strings.ReplaceAll(p.PatchText, "\r\n", "\n"))
		if norm == patchBegin+"\n"+patchEnd {
			return runtime.Result{}, errors.New("patch rejected: empty patch")
		}
		return runtime.Result{}, errors.New("apply_patch verification failed: no hunks found")
	}

	// Resolve and vet every path first, then lock them all, so no other
	// file tool changes them between verification and writing.
	// Where each path is written or removed is fixed here, when it is
	// checked (see writeTarget), and only those places are touched.
	var paths []string
	dests := map[string]patchDest{}
	vet := func(path string) error {
		if _, ok := dests[path]; ok {
			return nil
		}
		d := patchDest{write: writeTarget(path), remove: removeTarget(path)}
		if err := tc.CheckExternalDirectory(ctx, d.write, false); err != nil {
			return err
		}
		if d.remove != d.write {
			if err := tc.CheckExternalDirectory(ctx, d.remove, false); err != nil {
				return err
			}
		}
		dests[path] = d
		return nil
	}
	for i := range hunks {
		h := &hunks[i]
		h.Path = tc.ResolvePath(h.Path)
		if err := vet(h.Path); err != nil {
			return runtime.Result{}, err
		}
		paths = append(paths, h.Path)
		if h.MovePath != "" {
			h.MovePath = tc.ResolvePath(h.MovePath)
			if err := vet(h.MovePath); err != nil {
				return runtime.Result{}, err
			}
			paths = append(paths, h.MovePath)
		}
	}
	// The locks are keyed by where the bytes land, as edit's and write's
	// are, so a hunk naming a link and an edit naming its target wait for
	// each other.
	var keys []string
	for _, pth := range paths {
		keys = append(keys, dests[pth].write, dests[pth].remove)
	}
	unlock, err := lockFiles(ctx, keys...)
	if err != nil {
		return runtime.Result{}, err
	}
	defer func() { unlock() }()

	// Every existing file is read for the diff: one the session has not
	// read here is judged as a read of it would be (askReadFor).
	for _, pth := range slices.Compact(slices.Sorted(slices.Values(paths))) {
		if !readFreshly(ctx, tc, pth) {
			if err := askReadFor(ctx, tc, pth); err != nil {
				return runtime.Result{}, err
			}
		}
	}

	original := map[string]fileState{}
	current := map[string]fileState{}
	state := func(path string) (fileState, error) {
		if st, ok := current[path]; ok {
			return st, nil
		}
		st := fileState{}
		info, err := os.Stat(path)
		switch {
		case err == nil && info.IsDir():
			return st, fmt.Errorf("%s is a directory, not a file", path)
		case err == nil:
			b, err := os.ReadFile(path)
			if err != nil {
				return st, err
			}
			st = fileState{exists: true, content: string(b)}
		case !errors.Is(err, fs.ErrNotExist):
			return st, err
		}
		original[path], current[path] = st, st
		return st, nil
	}
	verifyErr := func(err error) error { return fmt.Errorf("apply_patch verification failed: %w", err) }

	var changes []patchChange
	for _, h := range hunks {
		st, err := state(h.Path)
		if err != nil {
			return runtime.Result{}, verifyErr(err)
		}
		switch h.Kind {
		case hunkAdd:
			current[h.Path] = fileState{exists: true, content: h.Contents}
			changes = append(changes, patchChange{kind: "add", path: h.Path, before: st.content, after: h.Contents})
		case hunkDelete:
			if !st.exists {
				return runtime.Result{}, verifyErr(fmt.Errorf("Failed to read file to delete: %s does not exist", h.Path))
			}
			current[h.Path] = fileState{}
			changes = append(changes, patchChange{kind: "delete", path: h.Path, before: st.content})
		case hunkUpdate:
			if !st.exists {
				return runtime.Result{}, verifyErr(fmt.Errorf("Failed to read file to update: %s does not exist", h.Path))
			}
			after := st.content
			if len(h.Chunks) > 0 {
				if after, err = applyChunks(h.Path, st.content, h.Chunks); err != nil {
					return runtime.Result{}, verifyErr(err)
				}
			}
			c := patchChange{kind: "update", path: h.Path, before: st.content, after: after}
			if h.MovePath != "" && h.MovePath != h.Path {
				if _, err := state(h.MovePath); err != nil {
					return runtime.Result{}, verifyErr(err)
				}
				c.kind, c.move = "move", h.MovePath
				current[h.Path] = fileState{}
				current[h.MovePath] = fileState{exists: true, content: after}
			} else {
				current[h.Path] = fileState{exists: true, content: after}
			}
			changes = append(changes, c)
		}
	}

	// Diffs and the permission request.
	var total strings.Builder
	var files []map[string]any
	var patterns []string
	seen := map[string]bool{}
	for _, c := range changes {
		target := c.path
		if c.move != "" {
			target = c.move
		}
		rel := displayPath(tc, target)
		d := diffTexts(rel, lfText(c.before), lfText(c.after))
		total.WriteString(d.Unified)
		f := map[string]any{
			"filePath": c.path, "relativePath": rel, "type": c.kind,
			"patch": d.Unified, "additions": d.Additions, "deletions": d.Deletions,
			"filediff": fileDiffMeta(target, lfText(c.before), lfText(c.after), d),
		}
		if c.move != "" {
			f["movePath"] = c.move
		}
		files = append(files, f)
		for _, pth := range []string{c.path, c.move} {
			if pth == "" {
				continue
			}
			for _, pat := range filePatterns(tc, pth) {
				if !seen[pat] {
					seen[pat] = true
					patterns = append(patterns, pat)
				}
			}
		}
	}
	if err := tc.Ask(ctx, permission.Request{
		Permission: permissionEdit,
		Patterns:   patterns,
		Always:     alwaysForAll(patterns),
		Metadata:   map[string]any{"filepath": strings.Join(patterns, ", "), "diff": total.String(), "files": files},
	}); err != nil {
		return runtime.Result{}, err
	}

	if err := commitStates(projectDir(tc), dests, paths, original, current); err != nil {
		return runtime.Result{}, err
	}
	for _, pth := range paths {
		if current[pth].exists {
			if err := recordRead(ctx, tc, pth); err != nil {
				return runtime.Result{}, err
			}
		}
	}

	unlock()
	unlock = func() {}
	var targets []string
	names := map[string]string{}
	for _, c := range changes {
		target := c.path
		if c.move != "" {
			target = c.move
		}
		if c.kind == "delete" || slices.Contains(targets, target) {
			continue
		}
		targets = append(targets, target)
		names[target] = displayPath(tc, target)
	}
	// Deleted and moved-away paths go too, so servers forget them.
	touched := slices.Clone(targets)
	for _, pth := range paths {
		if !current[pth].exists && !slices.Contains(touched, pth) {
			touched = append(touched, pth)
		}
	}
	diags := diagnoseChanged(ctx, tc, touched...)

	var out strings.Builder
	out.WriteString("Success. Updated the following files:")
	for _, c := range changes {
		switch c.kind {
		case "add":
			fmt.Fprintf(&out, "\nA %s", displayPath(tc, c.path))
		case "delete":
			fmt.Fprintf(&out, "\nD %s", displayPath(tc, c.path))
		case "move":
			fmt.Fprintf(&out, "\nM %s", displayPath(tc, c.move))
		default:
			fmt.Fprintf(&out, "\nM %s", displayPath(tc, c.path))
		}
	}
	return runtime.Result{
		Title:    out.String(),
		Output:   out.String() + patchDiagnosticsOutput(targets, names, diags),
		Metadata: map[string]any{"diff": total.String(), "files": files, "diagnostics": diags.Files},
	}, nil
}

// patchDest is where apply_patch writes and removes one path, fixed when
// the path is checked.
type patchDest struct {
	write, remove string
}

// commitStates writes every path whose final state differs from its
// original: content written atomically, or the file removed. On the first
// failure the paths already changed are put back as they were, and the
// error says whether that worked.
//
// dests says where each path is written or removed; project confines it
// (writeFileAtomic).
func commitStates(project string, dests map[string]patchDest, paths []string, original, final map[string]fileState) error {
	type undo struct {
		path string
		st   fileState
		mode fs.FileMode
	}
	var done []undo
	rollback := func(cause error) error {
		var errs []error
		for i := len(done) - 1; i >= 0; i-- {
			u := done[i]
			if !u.st.exists {
				if err := removeFile(project, dests[u.path].remove); err != nil {
					errs = append(errs, err)
				}
				continue
			}
			if err := writeFileAtomicMode(project, dests[u.path].write, []byte(u.st.content), u.mode, true); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("apply patch: %w; restoring the files already changed also failed: %w", cause, errors.Join(errs...))
		}
		return fmt.Errorf("apply patch: %w; the files already changed were restored, nothing was applied", cause)
	}
	seen := map[string]bool{}
	for _, pth := range paths {
		if seen[pth] {
			continue
		}
		seen[pth] = true
		orig, fin := original[pth], final[pth]
		if orig == fin {
			continue
		}
		mode := newFileMode
		if info, err := os.Stat(pth); err == nil {
			mode = info.Mode().Perm()
		}
		if fin.exists {
			if err := writeFileAtomic(project, dests[pth].write, []byte(fin.content)); err != nil {
				return rollback(err)
			}
		} else if err := removeFile(project, dests[pth].remove); err != nil {
			return rollback(err)
		}
		done = append(done, undo{pth, orig, mode})
	}
	return nil
}

// usesApplyPatch reports whether a model edits files with apply_patch
// instead of edit and write: the GPT models from gpt-5 on (not gpt-4*, not
// the open-weight gpt-oss), as OpenCode chooses.
func usesApplyPatch(model string) bool {
	return strings.Contains(model, "gpt-") && !strings.Contains(model, "oss") && !strings.Contains(model, "gpt-4")
}

// applyPatchAvailable offers apply_patch to the models that use it. For an
// unknown model a direct call may use it, while a listing shows edit and
// write instead, so a model is offered one set of editing tools.
func applyPatchAvailable(env runtime.Env) error {
	switch {
	case env.Model == "" && env.Listing:
		return runtime.NotOffered("no model is named, and a listing for an unknown model offers edit and write", "a model that edits with it, such as --model gpt-5")
	case env.Model != "" && !usesApplyPatch(env.Model):
		return runtime.NotOffered(fmt.Sprintf("model %s edits files with edit and write; apply_patch is offered to the GPT models from gpt-5 on", env.Model), "")
	}
	return nil
}

// offeredWithoutApplyPatch is the availability of edit and write: every
// model but those that edit with apply_patch.
func offeredWithoutApplyPatch(env runtime.Env) error {
	if usesApplyPatch(env.Model) {
		return runtime.NotOffered(fmt.Sprintf("model %s edits files with apply_patch instead", env.Model), "")
	}
	return nil
}
