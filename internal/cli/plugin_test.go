package cli

import (
	"bytes"
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
// commands on a project with a vendored describe/call plugin.
func TestPluginCommandsAddListVerifyAndRemoveALocalPlugin(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
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

	run := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		g := &Globals{Streams: IOStreams{Out: &out, ErrOut: &errOut, In: strings.NewReader("")}}
		root := NewRootCmd(g)
		root.SetArgs(append([]string{"-C", project, "plugin"}, args...))
		err := root.Execute()
		return out.String() + errOut.String(), err
	}
	if out, err := run("add", "./vendor/acme"); ExitCode(err) != ExitPermission || !strings.Contains(err.Error(), "--yes") {
		t.Fatalf("add without consent: %v %s, want refused", err, out)
	}
	out, err := run("add", "./vendor/acme", "--yes")
	if err != nil || !strings.Contains(out, "acme_greet") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	cfg, _ := os.ReadFile(filepath.Join(project, "toolhost.jsonc"))
	if !strings.Contains(string(cfg), "// keep me") || !strings.Contains(string(cfg), `"./vendor/acme"`) {
		t.Errorf("config = %s, want the ref added and the comment kept", cfg)
	}
	if out, err := run("list"); err != nil || !strings.Contains(out, "network access to api.acme.example") || !strings.Contains(out, "acme_greet") {
		t.Errorf("list: %v\n%s", err, out)
	}
	if out, err := run("verify"); err != nil || !strings.Contains(out, "1 plugin(s) match") {
		t.Errorf("verify: %v\n%s", err, out)
	}
	lock, _ := pkg.ReadLock(filepath.Join(project, pkg.LockFile))
	cache := pkg.Cache{Dir: filepath.Join(os.Getenv("XDG_CACHE_HOME"), "toolhost", "plugins")}
	digest := lock.Plugins[0].Digest
	module := filepath.Join(cache.Dir, "unpacked", strings.TrimPrefix(digest, "sha256:"), "acme.wasm")
	good, err := os.ReadFile(module)
	if err != nil {
		t.Fatal(err)
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
		if ExitCode(err) != ExitToolFailed || !strings.Contains(out, tamper.file) || !strings.Contains(out, tamper.want) || !strings.Contains(out, tamper.got) {
			t.Errorf("verify after %s: %v\n%s\nwant exit %d naming %s, %s and %s", tamper.name, err, out, ExitToolFailed, tamper.file, tamper.want, tamper.got)
		}
		if after, _ := os.ReadFile(tamper.file); string(after) != string(before) {
			t.Errorf("verify changed %s", tamper.file)
		}
		// The archive of a local directory is packed again from it.
		out, err = run("verify", "--repair")
		if err != nil || !strings.Contains(out, "restored "+tamper.file) || !strings.Contains(out, "1 plugin(s) match") {
			t.Errorf("verify --repair after %s: %v\n%s", tamper.name, err, out)
		}
		if out, err := run("verify"); err != nil {
			t.Errorf("verify after repairing %s: %v\n%s", tamper.name, err, out)
		}
	}
	os.WriteFile(cache.Path(digest), []byte("tampered"), 0o644)
	if out, err := run("verify"); err == nil || !strings.Contains(out, digest) {
		t.Errorf("verify after tampering: %v\n%s", err, out)
	}
	if out, err := run("remove", "acme"); err != nil {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	cfg, _ = os.ReadFile(filepath.Join(project, "toolhost.jsonc"))
	if strings.Contains(string(cfg), "vendor/acme") {
		t.Errorf("config after remove = %s", cfg)
	}
	archive := filepath.Join(t.TempDir(), "acme.tar.gz")
	out1, err := run("pack", vendor, "-o", archive)
	if err != nil {
		t.Fatal(err)
	}
	out2, _ := run("pack", vendor, "-o", archive+".2")
	if strings.Fields(out1)[1] != strings.Fields(out2)[1] {
		t.Errorf("pack is not reproducible: %s vs %s", out1, out2)
	}
}
