//go:build linux

package builtins

import (
	"context"
	"encoding/base64"
	"net"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// requireLandlock skips where the kernel has no Landlock, except in CI,
// where a missing sandbox must not pass unnoticed.
func requireLandlock(t testing.TB, minABI int) {
	t.Helper()
	abi, err := sandbox.Available()
	if err == nil && abi >= minABI {
		return
	}
	msg := "kernel lacks Landlock ABI " + strconv.Itoa(minABI) + " or later"
	if err != nil {
		msg += ": " + err.Error()
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// outsideDir makes a directory no default writable root covers: t.TempDir
// lies in the temporary directory, which commands may write, so it goes in
// /var/tmp, else in the home directory.
func outsideDir(t *testing.T) string {
	t.Helper()
	home, _ := os.UserHomeDir()
	for _, parent := range []string{"/var/tmp", home} {
		if parent == "" {
			continue
		}
		dir, err := os.MkdirTemp(parent, "toolhost-sandbox-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		tc := bashContext(t.TempDir(), &bashProbe{}, nil)
		if !BashSandboxPolicy(tc, config.Default(), os.Getenv).Plan().Allows(dir) {
			return dir
		}
	}
	t.Skip("no directory outside the sandbox's default writable roots could be made")
	return ""
}

// hidden spells path so that no parser can see it: the kernel has to
// stop the write.
func hidden(path string) string {
	return "$(echo " + base64.StdEncoding.EncodeToString([]byte(path)) + " | base64 -d)"
}

func TestBashSandbox(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	_, project := bashProject(t)
	outside := outsideDir(t)
	// The data directory lies outside the temporary directory, as it does
	// by default; one inside would carve it (see package sandbox).
	data := filepath.Join(outsideDir(t), "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	off := false
	tests := []struct {
		name    string
		command string
		cfg     *config.Config
		wantOK  bool
		note    string // a substring of the refusal note, when one is expected
	}{
		{"writing inside the project works", "echo hi > made && cat made", nil, true, ""},
		{"writing to the temporary directory works", "f=$(mktemp) && echo x > $f && rm $f", nil, true, ""},
		{"writing a directory the parser cannot see is refused by the kernel", "echo x > " + hidden(outside+"/f"), nil, false, `"sandbox": {"writable": ["` + outside + `"]}`},
		{"writing toolhost's data directory is refused", "touch " + hidden(data+"/sessions.db"), nil, false, "toolhost's own state"},
		{"sandbox.enabled false lets the write through", "echo x > " + hidden(outside+"/g") + " && cat " + hidden(outside+"/g"), &config.Config{Sandbox: config.Sandbox{Enabled: &off}}, true, ""},
		{"sandbox.writable grants a directory", "echo x > " + hidden(outside+"/h"), &config.Config{Sandbox: config.Sandbox{Writable: []string{outside}}}, true, ""},
		{"an external directory the call was allowed is writable", "touch " + outside + "/approved", nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := bashContext(project, &bashProbe{}, tt.cfg)
			tc.StateDirs = []string{data}
			res, err := runBashTool(t, context.Background(), tc, bashParams{Command: tt.command, Description: "sandbox"})
			if err != nil {
				t.Fatal(err)
			}
			if ok := res.Metadata["exit"] == 0; ok != tt.wantOK {
				t.Errorf("exit %v, want success=%v; output:\n%s", res.Metadata["exit"], tt.wantOK, res.Output)
			}
			if tt.note != "" && !strings.Contains(res.Output, tt.note) {
				t.Errorf("output lacks the note %q:\n%s", tt.note, res.Output)
			}
		})
	}
	for _, f := range []string{"f", "sessions.db"} {
		if _, err := os.Stat(filepath.Join(outside, f)); err == nil && f == "f" {
			t.Errorf("%s was written despite the sandbox", f)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "sessions.db")); err == nil {
		t.Error("the data directory was written despite the sandbox")
	}
	// The host itself stays unrestricted.
	if err := os.WriteFile(filepath.Join(outside, "host"), nil, 0o644); err != nil {
		t.Errorf("the host process was restricted: %v", err)
	}
}

func TestBashSandboxNetworkFalseRefusesTCPConnect(t *testing.T) {
	requireLandlock(t, sandbox.MinNetworkABI)
	t.Parallel()
	_, project := bashProject(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	cmd := "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + " && echo connected"
	no := false
	for _, tt := range []struct {
		cfg  *config.Config
		want bool
	}{{nil, true}, {&config.Config{Sandbox: config.Sandbox{Network: &no}}, false}} {
		cfg := tt.cfg
		if cfg == nil {
			cfg = &config.Config{}
		}
		cfg.Bash.Shell = "bash" // /dev/tcp is bash's
		res, err := runBashTool(t, context.Background(), bashContext(project, &bashProbe{}, cfg), bashParams{Command: cmd, Description: "connect"})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(res.Output, "connected"); got != tt.want {
			t.Errorf("network=%v: connected=%v, want %v:\n%s", cfg.Sandbox.NetworkOn(), got, tt.want, res.Output)
		}
	}
}

func TestBashSandboxMarkerIsNotInTheCommandsEnvironment(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	_, project := bashProject(t)
	res, err := runBashTool(t, context.Background(), bashContext(project, &bashProbe{}, nil), bashParams{Command: "env; cat /proc/$$/cmdline | tr '\\0' ' '", Description: "env"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, sandbox.HelperEnv) || strings.Contains(res.Output, sandbox.HelperArg) || !strings.Contains(res.Output, "PATH=") {
		t.Errorf("the command's environment or arguments show the helper's marker:\n%s", res.Output)
	}
}

func TestBashSandboxPolicy(t *testing.T) {
	t.Parallel()
	home, _ := os.UserHomeDir()
	tests := []struct {
		name  string
		rules permission.Ruleset
		want  []string // external directories granted
	}{
		{"the defaults grant no external directory", nil, nil},
		{"an allow rule grants its directory", permission.Ruleset{{Permission: "external_directory", Pattern: "/srv/data/*", Action: permission.Allow}}, []string{"/srv/data"}},
		{"a later ask takes an allow back", permission.Ruleset{
			{Permission: "external_directory", Pattern: "/srv/*", Action: permission.Allow},
			{Permission: "external_directory", Pattern: "*", Action: permission.Ask},
		}, nil},
		{"a wildcard permission's allow counts when nothing takes it back", permission.Ruleset{{Permission: "*", Pattern: "/opt/x/*", Action: permission.Allow}}, []string{"/opt/x"}},
		{"a pattern cut mid-name grants nothing, as the kernel grants whole directories", permission.Ruleset{{Permission: "external_directory", Pattern: "/srv/da*", Action: permission.Allow}}, nil},
		{"a relative pattern grants nothing", permission.Ruleset{{Permission: "external_directory", Pattern: "rel/*", Action: permission.Allow}}, nil},
		{"a deny grants nothing", permission.Ruleset{{Permission: "external_directory", Pattern: "/srv/*", Action: permission.Deny}}, nil},
		{"allow everything outside grants the root", permission.Ruleset{{Permission: "external_directory", Pattern: "*", Action: permission.Allow}}, []string{"/"}},
		{"a home pattern is expanded", permission.Ruleset{{Permission: "external_directory", Pattern: "~/notes/*", Action: permission.Allow}}, []string{filepath.Join(home, "notes")}},
	}
	reg, err := runtime.NewRegistry(runtime.Options{DataDir: "/state/data", CacheDir: "/state/cache", Directory: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tc := runtime.NewContext(runtime.Context{Directory: "/p/sub", Worktree: "/p", Rulebook: reg, Rules: tt.rules, StateDirs: reg.StateDirs()}, nil, nil)
			cfg := &config.Config{Sandbox: config.Sandbox{Writable: []string{"rel", "~/w", "/abs"}}}
			p := BashSandboxPolicy(tc, cfg, func(string) string { return "" })
			base := []string{"/p", "/p/sub", os.TempDir()}
			if !slices.Equal(p.Writable[:3], base) {
				t.Errorf("writable starts %v, want %v", p.Writable[:3], base)
			}
			n := len(p.Writable)
			if got := p.Writable[n-3:]; !slices.Equal(got, []string{"/p/rel", filepath.Join(home, "w"), "/abs"}) {
				t.Errorf("configured writable = %v", got)
			}
			var ext []string
			for _, w := range p.Writable[3 : n-3] {
				if !slices.Contains(sandbox.Devices, w) && !slices.Contains(config.SandboxCaches(func(string) string { return "" }, home), w) && w != "/state/data/tool-output" {
					ext = append(ext, w)
				}
			}
			if !slices.Equal(ext, tt.want) {
				t.Errorf("external directories = %v, want %v", ext, tt.want)
			}
			if !slices.Equal(p.Protected, []string{"/state/data", "/state/cache"}) || !p.Network {
				t.Errorf("protected %v, network %v", p.Protected, p.Network)
			}
		})
	}
}

// TestBashOutputMemoryIsBounded runs a command printing 200 MB: what the
// host allocates meanwhile must stay a small fraction of that, and the
// saved file must hold every byte. Not parallel: allocation counters are
// per process.
func TestBashOutputMemoryIsBounded(t *testing.T) {
	_, project := bashProject(t)
	const size = 200_000_000
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	res, err := runBashTool(t, context.Background(), bashContext(project, &bashProbe{}, nil), bashParams{Command: "yes | head -c " + strconv.Itoa(size), Description: "flood"})
	if err != nil {
		t.Fatal(err)
	}
	goruntime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d KB while %d MB streamed through", alloc>>10, size>>20)
	if alloc > 32<<20 {
		t.Errorf("the host allocated %d MB for %d MB of output; want it bounded", alloc>>20, size>>20)
	}
	path, _ := res.Metadata["outputPath"].(string)
	if fi, err := os.Stat(path); err != nil || fi.Size() != size {
		t.Fatalf("saved output %q: %v; want all %d bytes", path, err, size)
	}
	if res.Metadata["truncated"] != true || !strings.Contains(res.Output, "lines truncated...") || !strings.Contains(res.Output, path) {
		t.Errorf("output should be the head with the wrapper's marker and hint, got %d bytes ending %q", len(res.Output), res.Output[max(0, len(res.Output)-300):])
	}
	if len(res.Output) > config.DefaultMaxBytes+1024 {
		t.Errorf("output has %d bytes, over the limit", len(res.Output))
	}
}
