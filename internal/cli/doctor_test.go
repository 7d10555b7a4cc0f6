package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/internal/engines/toolbuild"
)

func TestDoctorReportsTheSandboxConfigFilesAndToolchains(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := filepath.Join(root, "project")
	extra := filepath.Join(root, "extra")
	for _, d := range []string{filepath.Join(project, ".git"), extra, filepath.Join(root, "cache", "toolhost"), filepath.Join(root, "cache", "pip")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfgFile := filepath.Join(project, "toolhost.json")
	if err := os.WriteFile(cfgFile, []byte(`{"sandbox": {"writable": ["../extra", "missing"], "network": false}, "permission": {"external_directory": "deny"}, "lsp": {"clangd": {"disabled": true}, "mine": {"command": ["my-ls"], "extensions": [".my"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"XDG_CONFIG_HOME": filepath.Join(root, "config"),
		"XDG_DATA_HOME":   filepath.Join(root, "data"),
		"XDG_CACHE_HOME":  filepath.Join(root, "cache"),
		// The project is the test's own (trust_test.go covers an untrusted one).
		"TOOLHOST_TRUSTED_PROJECTS": project,
	}
	find := func(_ context.Context, l toolbuild.Lang) (string, error) {
		if l == toolbuild.LangD {
			return "", &toolbuild.ToolchainError{Lang: l, Missing: "ldc2", Install: "apt-get install ldc"}
		}
		return string(l) + " 1.0", nil
	}
	look := func(name string) (string, error) {
		if name == "gopls" {
			return "/usr/bin/gopls", nil
		}
		return "", errors.New("executable file not found in $PATH")
	}
	opts := &DoctorOptions{Env: func(k string) string { return env[k] }, FindToolchain: find, LookPath: look}
	rep, err := Doctor(context.Background(), project, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Sandbox
	_, aerr := sandbox.Available()
	if s.Active != (aerr == nil) || !s.Enabled || s.Network {
		t.Errorf("sandbox = active %v enabled %v network %v; kernel: %v", s.Active, s.Enabled, s.Network, aerr)
	}
	granted := func(p string) bool {
		return slices.ContainsFunc(s.Plan.Grants, func(g sandbox.Grant) bool { return g.Path == p })
	}
	for _, p := range []string{project, extra, filepath.Join(root, "cache", "pip")} {
		if !granted(p) {
			t.Errorf("%s is not writable; grants %v", p, s.Plan.Grants)
		}
	}
	if granted(filepath.Join(root, "cache")) || granted(filepath.Join(root, "cache", "toolhost")) || !slices.Contains(s.Plan.Carved, filepath.Join(root, "cache")) {
		t.Errorf("toolhost's cache should be carved out of the cache root: grants %v, carved %v", s.Plan.Grants, s.Plan.Carved)
	}
	if !slices.Contains(s.Protected, filepath.Join(root, "data", "toolhost")) || !slices.Contains(s.Protected, filepath.Join(root, "cache", "toolhost")) {
		t.Errorf("protected = %v", s.Protected)
	}
	if !slices.ContainsFunc(s.Plan.Skipped, func(sk sandbox.Skip) bool { return sk.Path == filepath.Join(project, "missing") }) {
		t.Errorf("a missing writable entry is not reported skipped: %v", s.Plan.Skipped)
	}
	if !s.Plan.Read.Confined || !s.Plan.AllowsRead(project) || !s.Plan.AllowsRead("/usr/bin") || s.Plan.AllowsRead("/var/log") {
		t.Errorf("external_directory deny should confine reads to the project and the system: %+v", s.Plan.Read)
	}
	if !slices.Equal(rep.Config.Files, []string{cfgFile}) {
		t.Errorf("config files = %v", rep.Config.Files)
	}
	if len(rep.Toolchains) != len(toolbuild.Langs()) {
		t.Errorf("toolchains = %v", rep.Toolchains)
	}
	for _, tc := range rep.Toolchains {
		if (tc.Lang == toolbuild.LangD) == tc.Found || tc.Lang == toolbuild.LangD && !strings.Contains(tc.Problem, "apt-get install ldc") {
			t.Errorf("toolchain %+v", tc)
		}
	}

	servers := map[string]LanguageServerReport{}
	for _, l := range rep.LanguageServers {
		servers[l.Name] = l
	}
	if _, ok := servers["clangd"]; ok {
		t.Error("a disabled language server is reported")
	}
	if g := servers["gopls"]; g.Path != "/usr/bin/gopls" || !g.Builtin {
		t.Errorf("gopls = %+v", g)
	}
	if m := servers["mine"]; m.Builtin || m.Problem == "" {
		t.Errorf("mine = %+v", m)
	}

	var text bytes.Buffer
	rep.Write(&text, true) // every path: the temporary directory may be granted entry by entry
	for _, want := range []string{"bash sandbox", "TCP connect and bind refused", "UDP, MPTCP", "readable:   ", "external_directory denies outside the project", extra, "carved:", cfgFile, "missing: ldc2",
		"gopls          /usr/bin/gopls (.go)", "pyright        not installed (pyright-langserver not on PATH", `mine           missing: executable file not found in $PATH; fix "lsp".mine.command`} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("printed report lacks %q:\n%s", want, text.String())
		}
	}
	var round DoctorReport
	b, _ := json.Marshal(rep)
	if err := json.Unmarshal(b, &round); err != nil || round.Sandbox.Plan.Grants[0] != s.Plan.Grants[0] {
		t.Errorf("the JSON report does not round-trip: %v", err)
	}
}

func TestDoctorRejectsAnUnknownAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Doctor(context.Background(), dir, &DoctorOptions{Agent: "nobody", Env: func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": dir, "XDG_DATA_HOME": dir, "XDG_CACHE_HOME": dir}[k]
	}, FindToolchain: func(context.Context, toolbuild.Lang) (string, error) { return "", nil }})
	if err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Errorf("err = %v, want an unknown agent error", err)
	}
}

// Your grant for jira does not reach a project's jira.ts that takes over
// the id; doctor lists it with the config that would grant it on purpose.
func TestDoctorListsAGrantWithheldFromAShadowingTool(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := filepath.Join(root, "project")
	projectTool := filepath.Join(project, ".opencode", "tool", "jira.ts")
	userCfg := filepath.Join(root, "config", "toolhost", "toolhost.json")
	for path, content := range map[string]string{
		filepath.Join(project, ".git", "HEAD"): "",
		projectTool:                            "export default {}",
		userCfg:                                `{"wasm": {"jira": {"env": ["JIRA_TOKEN"]}}}`,
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_DATA_HOME": filepath.Join(root, "data"), "XDG_CACHE_HOME": filepath.Join(root, "cache")}
	rep, err := Doctor(context.Background(), project, &DoctorOptions{Env: func(k string) string { return env[k] },
		FindToolchain: func(context.Context, toolbuild.Lang) (string, error) { return "", nil }, LookPath: func(string) (string, error) { return "", errors.New("none") }})
	if err != nil {
		t.Fatal(err)
	}
	w := rep.Config.GrantsWithheld
	if len(w) != 1 || w[0].File != projectTool || !strings.Contains(w[0].Reason, userCfg) || !strings.Contains(w[0].Reason, `{"wasm":{"`+projectTool+`":{"env":["JIRA_TOKEN"]}}}`) {
		t.Fatalf("withheld = %+v, want the user's jira grant for %s with the entry that grants it", w, projectTool)
	}
	var out strings.Builder
	rep.Print(&out)
	if !strings.Contains(out.String(), "withheld:   "+projectTool) {
		t.Errorf("the printed report does not list it:\n%s", out.String())
	}
}

// TestDoctorCutsLongListsUnlessVerbose: when toolhost's state lies under
// the temporary directory (HOME under /tmp), that directory is granted
// entry by entry, thousands of lines; the report shows the first few and
// how many more, and --verbose all of them.
func TestDoctorCutsLongListsUnlessVerbose(t *testing.T) {
	t.Parallel()
	rep := &DoctorReport{}
	for i := range 1000 {
		rep.Sandbox.Plan.Grants = append(rep.Sandbox.Plan.Grants, sandbox.Grant{Path: fmt.Sprintf("/tmp/entry%04d", i)})
	}
	for i := range 20 {
		rep.Sandbox.Hidden = append(rep.Sandbox.Hidden, fmt.Sprintf("/dev/loop%d", i))
	}
	var short, long bytes.Buffer
	rep.Print(&short)
	rep.Write(&long, true)
	if n := strings.Count(short.String(), "\n"); n > 40 {
		t.Errorf("the concise report has %d lines:\n%s", n, short.String())
	}
	for _, want := range []string{"/tmp/entry0000", "… and 994 more (toolhost doctor --verbose)", "/dev/loop5 (never", "… and 14 more"} {
		if !strings.Contains(short.String(), want) {
			t.Errorf("the concise report lacks %q:\n%s", want, short.String())
		}
	}
	if strings.Contains(short.String(), "/tmp/entry0999") || !strings.Contains(long.String(), "/tmp/entry0999") || !strings.Contains(long.String(), "/dev/loop19") {
		t.Error("only the verbose report should list the last entries")
	}
}
