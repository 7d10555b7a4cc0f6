package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
)

func TestCheckExternalDirectoryAsksOnlyForPathsOutsideTheProject(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(root, "project")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(project, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink inside the project that leads out of it.
	if err := os.Symlink(outside, filepath.Join(project, "escape")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		isDir   bool
		extra   map[string]any
		pattern string // "" means no request
	}{
		{name: "a file in the project needs nothing", path: "sub/a.go"},
		{name: "a file that does not exist yet in the project needs nothing", path: "new/dir/b.go"},
		{name: "a file outside asks for its directory", path: filepath.Join(outside, "x.txt"), pattern: filepath.Join(outside, "*")},
		{name: "a directory outside asks for itself", path: outside, isDir: true, pattern: filepath.Join(outside, "*")},
		{name: "dot-dot out of the project asks", path: "../outside/y.txt", pattern: filepath.Join(outside, "*")},
		{name: "a symlink leading out of the project asks for where it leads", path: "escape/z.txt", pattern: filepath.Join(outside, "*")},
		{name: "the bypass flag skips the check", path: filepath.Join(outside, "x.txt"), extra: map[string]any{ExtraBypassCwdCheck: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []permission.Request
			tcx := NewContext(Context{Directory: project, Worktree: project, Extra: tc.extra}, nil,
				func(_ context.Context, req permission.Request) error {
					got = append(got, req)
					return nil
				})
			if err := tcx.CheckExternalDirectory(context.Background(), tcx.ResolvePath(tc.path), tc.isDir); err != nil {
				t.Fatal(err)
			}
			if tc.pattern == "" {
				if len(got) != 0 {
					t.Fatalf("asked %v, want no request", got)
				}
				return
			}
			if len(got) != 1 || got[0].Permission != PermissionExternalDirectory || got[0].Patterns[0] != tc.pattern {
				t.Fatalf("requests = %+v, want one for %s", got, tc.pattern)
			}
		})
	}
}

func TestDecideExternalEvaluatesTheResolvedPathWithoutAsking(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(root, "project")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(project, "sub"), filepath.Join(outside, "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(project, "escape")); err != nil {
		t.Fatal(err)
	}
	allowOut := permission.Rule{Permission: PermissionExternalDirectory, Pattern: filepath.Join(outside, "*"), Action: permission.Allow}
	denyDeep := permission.Rule{Permission: PermissionExternalDirectory, Pattern: filepath.Join(outside, "deep", "*"), Action: permission.Deny}
	tests := []struct {
		name    string
		path    string
		isDir   bool
		rules   permission.Ruleset
		extra   map[string]any
		inside  bool
		action  permission.Action
		pattern string
	}{
		{name: "a path in the project is inside", path: "sub/a.go", inside: true},
		{name: "a path outside without rules is ask", path: filepath.Join(outside, "x"), action: permission.Ask, pattern: filepath.Join(outside, "*")},
		{name: "a link in the project is decided by where it leads", path: "escape/x", action: permission.Ask, pattern: filepath.Join(outside, "*")},
		{name: "an allow rule for the resolved directory allows the link", path: "escape/x", rules: permission.Ruleset{allowOut}, action: permission.Allow, pattern: filepath.Join(outside, "*")},
		{name: "a directory is evaluated as itself", path: "escape/deep", isDir: true, rules: permission.Ruleset{allowOut, denyDeep}, action: permission.Deny, pattern: filepath.Join(outside, "deep", "*")},
		{name: "a rule for the link's own path does not allow it", path: "escape/x", rules: permission.Ruleset{{Permission: PermissionExternalDirectory, Pattern: filepath.Join(project, "*"), Action: permission.Allow}}, action: permission.Ask, pattern: filepath.Join(outside, "*")},
		{name: "the bypass flag makes everything inside", path: filepath.Join(outside, "x"), extra: map[string]any{ExtraBypassCwdCheck: true}, inside: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			asked := false
			tc := NewContext(Context{Directory: project, Worktree: project, Rules: tt.rules, Extra: tt.extra}, nil,
				func(context.Context, permission.Request) error { asked = true; return nil })
			d := tc.DecideExternal(context.Background(), tc.ResolvePath(tt.path), tt.isDir)
			if asked {
				t.Fatal("DecideExternal asked a person")
			}
			if d.Inside != tt.inside || d.Allowed() != (tt.inside || tt.action == permission.Allow) {
				t.Fatalf("decision = %+v, want inside %v", d, tt.inside)
			}
			if !tt.inside && (d.Rule.Action != tt.action || d.Pattern != tt.pattern) {
				t.Fatalf("decision = %+v, want %s for %s", d, tt.action, tt.pattern)
			}
		})
	}
}

func TestDecideExternalUsesTheAgentRulesAndSessionApprovals(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	project, allowed, approvedDir, denied := filepath.Join(root, "p"), filepath.Join(root, "a"), filepath.Join(root, "s"), filepath.Join(root, "d")
	for _, d := range []string{project, allowed, approvedDir, denied} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	agent := &Agent{Name: "build", Rules: permission.Ruleset{
		{Permission: PermissionExternalDirectory, Pattern: filepath.Join(allowed, "*"), Action: permission.Allow},
		{Permission: PermissionExternalDirectory, Pattern: filepath.Join(denied, "*"), Action: permission.Deny},
	}}
	asker := permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
		return permission.Reply{Kind: permission.Always}, nil
	})
	r := newTestRegistry(t, nil, func(o *Options) {
		o.Agents = map[string]*Agent{"build": agent}
		o.Asker = asker
		o.Directory, o.Worktree = project, project
	})
	// An "always" reply earlier in the session approves approvedDir/* and,
	// being an approval, may not override the deny on denied/*.
	for _, dir := range []string{approvedDir, denied} {
		_ = r.Permissions().Ask(context.Background(), agent.Rules, permission.Request{
			SessionID: "ses", Permission: PermissionExternalDirectory,
			Patterns: []string{filepath.Join(dir, "*")}, Always: []string{filepath.Join(dir, "*")},
		})
	}
	tc := NewContext(Context{Directory: project, Worktree: project, Agent: "build", SessionID: "ses", Rulebook: r}, nil, nil)
	for dir, want := range map[string]permission.Action{allowed: permission.Allow, approvedDir: permission.Allow, denied: permission.Deny, root: permission.Ask} {
		if got := tc.DecideExternal(context.Background(), filepath.Join(dir, "f"), false).Rule.Action; got != want {
			t.Errorf("%s: action %s, want %s", dir, got, want)
		}
	}
	tc.Agent = "nobody"
	if got := tc.DecideExternal(context.Background(), filepath.Join(allowed, "f"), false).Rule.Action; got != permission.Ask {
		t.Errorf("unknown agent: action %s, want ask (fail closed)", got)
	}
}

func TestSchemaForGeneratesRequiredPropertiesWithDescriptions(t *testing.T) {
	t.Parallel()
	type args struct {
		FilePath string `json:"filePath" jsonschema:"description=The absolute path"`
		Limit    int    `json:"limit,omitempty"`
	}
	cs, err := CompileSchema("t", SchemaFor[args]())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.validate("t", []byte(`{"filePath":"a","limit":3}`)); err != nil {
		t.Errorf("valid args rejected: %v", err)
	}
	if _, err := cs.validate("t", []byte(`{"limit":3}`)); err == nil {
		t.Error("missing required filePath accepted")
	}
	if s := string(SchemaFor[args]()); !contains(s, `"description":"The absolute path"`) || contains(s, "$schema") {
		t.Errorf("schema = %s", s)
	}
	if s := string(SchemaFor[struct{}]()); !contains(s, `"properties":{}`) {
		t.Errorf("empty args schema lacks properties: %s", s)
	}
}

func contains(s, sub string) bool { return len(s) >= len(sub) && (s == sub || indexOf(s, sub) >= 0) }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
