package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
	"github.com/toolhost/toolhost/plugins/pkg"
)

func TestPluginFlagsReachTheCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want PluginOptions
	}{
		{[]string{"add", "oci://r.example/a/b:1", "--yes"}, PluginOptions{Action: "add", Args: []string{"oci://r.example/a/b:1"}, Yes: true}},
		{[]string{"update", "jira", "acme"}, PluginOptions{Action: "update", Args: []string{"jira", "acme"}}},
		{[]string{"list", "--json"}, PluginOptions{Action: "list", Args: []string{}, JSON: true}},
		{[]string{"verify", "--repair"}, PluginOptions{Action: "verify", Args: []string{}, Repair: true}},
		{[]string{"pack", "./jira", "-o", "x.tar.gz"}, PluginOptions{Action: "pack", Args: []string{"./jira"}, Output: "x.tar.gz"}},
		{[]string{"sign", "x.tar.gz", "--key", "k"}, PluginOptions{Action: "sign", Args: []string{"x.tar.gz"}, Key: "k"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			var got *PluginOptions
			cmd := NewCmdPlugin(&Globals{}, func(_ context.Context, _ *Globals, o *PluginOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(*got) != fmt.Sprint(tt.want) {
				t.Errorf("options = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// TestPluginCommandsAddListVerifyAndRemoveALocalPlugin drives the
// commands on a project with a vendored describe/call plugin, through
// the binary: its fresh user's cache is its own, so it runs beside the
// other tests (in process it had to set XDG_CACHE_HOME, and ran alone).
func TestPluginCommandsAddListVerifyAndRemoveALocalPlugin(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.ShareCompiled()
	project := p.Dir
	vendor := filepath.Join(project, "vendor", "acme")
	os.MkdirAll(vendor, 0o755)
	// From go run's cache, as the end-to-end tests' guests are.
	built, err := e2e.GoBuild(filepath.Join("..", "..", "plugins", "wasm", "testdata", "guests"), []string{"GOOS=wasip1", "GOARCH=wasm", "GOWORK=off"}, "-buildmode=c-shared", "./compat")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("build test guest: %v", err)
		}
		t.Skipf("skipped: cannot build the test guest: %v", err)
	}
	if err := e2e.CopyFile(built, filepath.Join(vendor, "acme.wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(vendor, "toolhost-plugin.json"), []byte(`{"name":"acme","version":"0.1.0","abi":"toolhost-abi 1","modules":["acme.wasm"],"capabilities":{"allowed_hosts":["api.acme.example"]}}`), 0o644)
	os.WriteFile(filepath.Join(project, "toolhost.jsonc"), []byte("{\n  // keep me\n  \"model\": \"m\"\n}\n"), 0o644)

	// run runs `toolhost plugin args…` and returns its stdout and stderr
	// together, and its exit code.
	run := func(args ...string) (string, int) {
		t.Helper()
		out, stderr, code := p.Run("", append([]string{"plugin"}, args...)...)
		return out + stderr, code
	}
	if out, code := run("add", "./vendor/acme"); code != ExitPermission || !strings.Contains(out, "--yes") {
		t.Fatalf("add without consent: exit %d %s, want refused", code, out)
	}
	out, code := run("add", "./vendor/acme", "--yes")
	if code != 0 || !strings.Contains(out, "acme_greet") {
		t.Fatalf("add: exit %d\n%s", code, out)
	}
	cfg, _ := os.ReadFile(filepath.Join(project, "toolhost.jsonc"))
	if !strings.Contains(string(cfg), "// keep me") || !strings.Contains(string(cfg), `"./vendor/acme"`) {
		t.Errorf("config = %s, want the ref added and the comment kept", cfg)
	}
	if out, err := run("list"); err != 0 || !strings.Contains(out, "network access to api.acme.example") || !strings.Contains(out, "acme_greet") {
		t.Errorf("list: exit %v\n%s", err, out)
	}
	if out, err := run("verify"); err != 0 || !strings.Contains(out, "1 plugin(s) match") {
		t.Errorf("verify: exit %v\n%s", err, out)
	}
	lock, _ := pkg.ReadLock(filepath.Join(project, pkg.LockFile))
	cache := pkg.Cache{Dir: filepath.Join(p.Home, ".cache", "toolhost", "plugins")}
	digest := lock.Plugins[0].Digest
	module := filepath.Join(cache.Dir, "unpacked", strings.TrimPrefix(digest, "sha256:"), "acme.wasm")
	good, rerr := os.ReadFile(module)
	if rerr != nil {
		t.Fatal(rerr)
	}
	evil := append([]byte("\x00asm\x01\x00\x00\x00"), "evil"...)
	for _, tamper := range []struct {
		name, file string
		want, got  string
	}{
		{"a replaced unpacked module", module, pkg.Digest(good), pkg.Digest(evil)},
		{"a replaced archive blob", cache.Path(digest), digest, pkg.Digest(evil)},
	} {
		os.WriteFile(tamper.file, evil, 0o644)
		before, _ := os.ReadFile(tamper.file)
		out, err := run("verify")
		if err != ExitToolFailed || !strings.Contains(out, tamper.file) || !strings.Contains(out, tamper.want) || !strings.Contains(out, tamper.got) {
			t.Errorf("verify after %s: exit %v\n%s\nwant exit %d naming %s, %s and %s", tamper.name, err, out, ExitToolFailed, tamper.file, tamper.want, tamper.got)
		}
		if after, _ := os.ReadFile(tamper.file); string(after) != string(before) {
			t.Errorf("verify changed %s", tamper.file)
		}
		// The archive of a local directory is packed again from it.
		out, err = run("verify", "--repair")
		if err != 0 || !strings.Contains(out, "restored "+tamper.file) || !strings.Contains(out, "1 plugin(s) match") {
			t.Errorf("verify --repair after %s: exit %v\n%s", tamper.name, err, out)
		}
		if out, err := run("verify"); err != 0 {
			t.Errorf("verify after repairing %s: exit %v\n%s", tamper.name, err, out)
		}
	}
	os.WriteFile(cache.Path(digest), []byte("tampered"), 0o644)
	if out, err := run("verify"); err == 0 || !strings.Contains(out, digest) {
		t.Errorf("verify after tampering: exit %v\n%s", err, out)
	}
	if out, err := run("remove", "acme"); err != 0 {
		t.Fatalf("remove: exit %v\n%s", err, out)
	}
	cfg, _ = os.ReadFile(filepath.Join(project, "toolhost.jsonc"))
	if strings.Contains(string(cfg), "vendor/acme") {
		t.Errorf("config after remove = %s", cfg)
	}
	archive := filepath.Join(t.TempDir(), "acme.tar.gz")
	out1, code := run("pack", vendor, "-o", archive)
	if code != 0 {
		t.Fatalf("pack: exit %d: %s", code, out1)
	}
	out2, _ := run("pack", vendor, "-o", archive+".2")
	if strings.Fields(out1)[1] != strings.Fields(out2)[1] {
		t.Errorf("pack is not reproducible: %s vs %s", out1, out2)
	}
}
