package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/toolbuild"
	"github.com/toolhost/toolhost/internal/trust"
)

func TestDoctorSaysAnUntrustedProjectIsNotTrustedAndShowsTheUsersConfigInEffect(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := filepath.Join(root, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(`{"lsp": {"mine": {"command": ["my-ls"], "extensions": [".my"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_DATA_HOME": filepath.Join(root, "data"), "XDG_CACHE_HOME": filepath.Join(root, "cache")}
	opts := &DoctorOptions{Env: func(k string) string { return env[k] },
		FindToolchain: func(context.Context, toolbuild.Lang) (string, error) { return "1.0", nil },
		LookPath:      func(name string) (string, error) { return "/bin/" + name, nil }}
	rep, err := Doctor(context.Background(), project, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Trust.Trusted || !strings.Contains(rep.Trust.Notice, trust.Command) {
		t.Errorf("trust = %+v; want not trusted, with the command", rep.Trust)
	}
	for _, l := range rep.LanguageServers {
		if l.Name == "mine" {
			t.Errorf("the untrusted project's language server is reported in effect: %+v", l)
		}
	}
	var out bytes.Buffer
	rep.Print(&out)
	if !strings.Contains(out.String(), "NOT trusted") {
		t.Errorf("printed report does not say the project is not trusted:\n%s", out.String())
	}
}
