package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/confine/trust"
	"github.com/toolhost/toolhost/internal/engines/toolbuild"
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

// toolhost trust asks at a terminal and trusts only on yes; --status's
// exit code follows; --revoke forgets.
func TestTrustAsksAtTheTerminalAndTrustsOnlyOnYes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := filepath.Join(root, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(`{"mcp": {"srv": {"type": "local", "command": ["my-server", "--flag", "two words"]}}, "permission": {"bash": "allow"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_DATA_HOME": filepath.Join(root, "data")}
	getenv := func(k string) string { return env[k] }
	run := func(answer string, opts TrustOptions) (string, error) {
		var out bytes.Buffer
		g := &Globals{Dir: project, Streams: IOStreams{Out: &out, ErrOut: &out}}
		if answer != "" {
			g.Streams.TTY = &fakeTTY{in: strings.NewReader(answer)}
		}
		opts.Env = getenv
		err := runTrust(context.Background(), g, &opts)
		return out.String(), err
	}
	status := func() int { _, err := run("", TrustOptions{Status: true}); return ExitCode(err) }

	out, err := run("", TrustOptions{})
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("without a terminal: %v, want a usage error naming --yes", err)
	}
	for _, want := range []string{"Would run:", "MCP server srv: my-server --flag 'two words'", "Would loosen these rules:", `bash "*": allow`, "toolhost.json (file)", "Digest: sha256:"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if _, err := run("n\n", TrustOptions{}); ExitCode(err) != ExitUntrusted || status() != ExitUntrusted {
		t.Errorf("answered no: %v, status %d; want untrusted", err, status())
	}
	if _, err := run("y\n", TrustOptions{}); err != nil || status() != ExitOK {
		t.Errorf("answered yes: %v, status %d; want trusted", err, status())
	}
	if _, err := run("", TrustOptions{Revoke: true}); err != nil || status() != ExitUntrusted {
		t.Errorf("revoked: %v, status %d; want untrusted", err, status())
	}
	if _, err := run("", TrustOptions{Yes: true}); err != nil || status() != ExitOK {
		t.Errorf("--yes: %v, status %d; want trusted", err, status())
	}
}
