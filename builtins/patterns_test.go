package builtins

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// A rule on a file (".env": deny, "secrets/*": deny) holds whatever name
// the model reaches it by: a link inside the project to a denied file is
// denied too, for reading and for every way of writing.
func TestALinkInsideTheProjectDoesNotGetAroundARule(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{".env": "SECRET=1\n", "secrets/key.txt": "KEY\n", "a.txt": "plain\n", ".git/placeholder": ""}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"notes.txt": ".env", "docs": "secrets", "plain.txt": "a.txt"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	newReg := func(rules permission.Ruleset) *runtime.Registry {
		reg, err := runtime.NewRegistry(runtime.Options{
			Directory: root, Worktree: root, DataDir: t.TempDir(),
			Agents: map[string]*runtime.Agent{"build": {Name: "build", Rules: append(permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow}}, rules...)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		reg.Add(runtime.SourceBuiltin, Read(), Edit(), MultiEdit(), Write(), ApplyPatch())
		return reg
	}
	denyRead := newReg(permission.Ruleset{
		{Permission: "read", Pattern: "*.env", Action: permission.Deny},
		{Permission: "read", Pattern: "secrets/*", Action: permission.Deny},
	})
	// Reading is allowed here, so the read-before-write check is met and
	// the edit rules decide.
	denyEdit := newReg(permission.Ruleset{
		{Permission: "edit", Pattern: "*.env", Action: permission.Deny},
		{Permission: "edit", Pattern: "secrets/*", Action: permission.Deny},
	})
	for _, p := range []string{"notes.txt", "docs/key.txt"} {
		if _, err := callTool(t, denyEdit, "read", map[string]any{"filePath": filepath.Join(root, p)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, tool string
		reg        *runtime.Registry
		args       map[string]any
		denied     bool
	}{
		{"read through a link to .env", "read", denyRead, map[string]any{"filePath": filepath.Join(root, "notes.txt")}, true},
		{"read through a linked folder", "read", denyRead, map[string]any{"filePath": filepath.Join(root, "docs", "key.txt")}, true},
		{"read .env itself", "read", denyRead, map[string]any{"filePath": filepath.Join(root, ".env")}, true},
		{"read through a link to an allowed file", "read", denyRead, map[string]any{"filePath": filepath.Join(root, "plain.txt")}, false},
		{"edit through a link", "edit", denyEdit, map[string]any{"filePath": filepath.Join(root, "notes.txt"), "oldString": "SECRET=1", "newString": "SECRET=2"}, true},
		{"multiedit through a linked folder", "multiedit", denyEdit, map[string]any{"filePath": filepath.Join(root, "docs", "key.txt"), "edits": []map[string]any{{"oldString": "KEY", "newString": "K"}}}, true},
		{"write through a link", "write", denyEdit, map[string]any{"filePath": filepath.Join(root, "notes.txt"), "content": "SECRET=3\n"}, true},
		{"apply_patch through a link", "apply_patch", denyEdit, map[string]any{"patchText": "*** Begin Patch\n*** Update File: notes.txt\n@@\n-SECRET=1\n+SECRET=4\n*** End Patch"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := callTool(t, tt.reg, tt.tool, tt.args)
			var de *permission.DeniedError
			if denied := errors.As(err, &de); denied != tt.denied {
				t.Fatalf("err = %v; denied %v, want %v", err, denied, tt.denied)
			}
		})
	}
	for rel, want := range map[string]string{".env": "SECRET=1\n", "secrets/key.txt": "KEY\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, rel)); string(b) != want {
			t.Errorf("%s changed to %q", rel, b)
		}
	}
	if res, err := callTool(t, denyRead, "read", map[string]any{"filePath": filepath.Join(root, "plain.txt")}); err != nil || !strings.Contains(res.Output, "plain") {
		t.Errorf("the allowed link: %q, %v", res.Output, err)
	}
}

// When nobody can be asked, the refusal suggests a rule that would allow
// the read: for a link, one for the target the rules ask about, not for
// the link's name (which would not be enough).
func TestARefusalThroughALinkSuggestsARuleForTheTarget(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".env"), []byte("SECRET=1\n"), 0o644)
	if err := os.Symlink(".env", filepath.Join(root, "notes.txt")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	reg, err := runtime.NewRegistry(runtime.Options{
		Directory: root, Worktree: root, DataDir: t.TempDir(),
		Agents: map[string]*runtime.Agent{"build": {Name: "build", Rules: permission.Ruleset{
			{Permission: "*", Pattern: "*", Action: permission.Allow},
			{Permission: "read", Pattern: "*.env", Action: permission.Ask},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceBuiltin, Read())
	_, err = callTool(t, reg, "read", map[string]any{"filePath": filepath.Join(root, "notes.txt")})
	if err == nil || !strings.Contains(err.Error(), `{".env": "allow"}`) {
		t.Fatalf("err = %v, want a suggested rule for .env", err)
	}
}
