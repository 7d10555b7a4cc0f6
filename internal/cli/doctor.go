package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/internal/confine/trust"
	"github.com/toolhost/toolhost/internal/engines/npmengine"
	"github.com/toolhost/toolhost/internal/engines/toolbuild"
	"github.com/toolhost/toolhost/plugins/js"
	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// DoctorOptions are the flags of `toolhost doctor`.
type DoctorOptions struct {
	JSON  bool
	Agent string
	// Verbose lists every entry of the long lists (writable, readable and
	// hidden paths), which can run to thousands of lines: when toolhost's
	// own state is under the temporary directory (HOME under /tmp), that
	// directory is granted entry by entry instead of whole.
	Verbose bool
	// Env reads environment variables; tests replace it. Nil: os.Getenv.
	Env func(string) string
	// FindToolchain reports a language's toolchain; tests replace it.
	// Nil: toolbuild.FindToolchain.
	FindToolchain func(context.Context, toolbuild.Lang) (string, error)
	// LookPath finds a language server's program; tests replace it. Nil:
	// exec.LookPath.
	LookPath func(string) (string, error)
}

// DoctorReport is what `toolhost doctor` finds; --json prints it.
type DoctorReport struct {
	Sandbox    SandboxReport     `json:"sandbox"`
	Config     ConfigReport      `json:"config"`
	Plugins    []PluginReport    `json:"plugins"`
	Toolchains []ToolchainReport `json:"toolchains"`
	// JSEngine is the engine TypeScript and JavaScript tools run on.
	JSEngine js.EngineStatus `json:"js_engine"`
	// PythonEngine is the engine Python tools run on.
	PythonEngine npmengine.Status `json:"python_engine"`
	// LanguageServers are the servers in effect for the edit tools'
	// diagnostics (docs/lsp.md), none when "lsp" is false.
	LanguageServers []LanguageServerReport `json:"language_servers"`
	// Trust says whether the project's own config and tools are trusted
	// (toolhost trust); the rest of the report is what is in effect.
	Trust TrustReport `json:"trust"`
	// MCP is what MCP clients meet (doctormcp.go).
	MCP MCPReport `json:"mcp"`
}

// LanguageServerReport is one language server in effect: found, or why
// it will not run.
type LanguageServerReport struct {
	Name       string   `json:"name"`
	Command    []string `json:"command"`
	Extensions []string `json:"extensions"`
	// Builtin servers missing from PATH are skipped without a word;
	// configured ones cost a note in the first edit's output.
	Builtin bool   `json:"builtin"`
	Path    string `json:"path,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// SandboxReport is the bash sandbox's state on this machine.
type SandboxReport struct {
	// Enabled is the config's sandbox.enabled.
	Enabled bool `json:"enabled"`
	// Active says commands run confined: enabled and the kernel has
	// Landlock. Reason says why not, when not.
	Active bool   `json:"active"`
	ABI    int    `json:"abi"`
	Reason string `json:"reason,omitempty"`
	// Network false means TCP connect and bind are refused, other
	// sockets and abstract UNIX sockets of other programs too.
	Network   bool     `json:"network"`
	Protected []string `json:"protected"`
	// Signals says commands may signal only their own processes
	// (Landlock ABI 6).
	Signals bool `json:"signals_scoped"`
	// Hidden are the credential locations on this machine commands may
	// not read, by the name that grants each in sandbox.readable.
	Hidden []string `json:"hidden"`
	// Plan is what a command of the project may write.
	Plan sandbox.Plan `json:"plan"`
	// Helper is the helper program commands are confined by
	// (toolhost-sandbox beside toolhost), or "" and HelperProblem why
	// toolhost re-executes itself instead (slower).
	Helper        string `json:"helper,omitempty"`
	HelperProblem string `json:"helper_problem,omitempty"`
	// Forked is true where toolhost forks and confines each command
	// itself, with no helper program (linux/amd64).
	Forked bool `json:"forked,omitempty"`
}

// ConfigReport lists where config comes from.
type ConfigReport struct {
	Dirs  []string `json:"dirs"`
	Files []string `json:"files"`
	// GrantsWithheld are "wasm" grants for a tool file's name that the
	// config making them may not give that file (a project's jira.ts
	// shadowing yours does not get your jira grant), each with the config
	// that would grant it on purpose.
	GrantsWithheld []runtime.LoadError `json:"grants_withheld,omitempty"`
}

// ToolchainReport is one guest language's toolchain.
type ToolchainReport struct {
	Lang    toolbuild.Lang `json:"lang"`
	Found   bool           `json:"found"`
	Version string         `json:"version,omitempty"`
	Problem string         `json:"problem,omitempty"`
}

// NewCmdDoctor reports the bash sandbox, the config files and the guest
// toolchains. runF replaces the behaviour in tests of flag parsing; nil
// means runDoctor.
func NewCmdDoctor(g *Globals, runF func(context.Context, *Globals, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Report the bash sandbox, config files, plugins and guest toolchains",
		Long: `Report what toolhost finds on this machine for this project: whether bash
commands run under the kernel sandbox (Linux Landlock: its ABI, the
directories commands may write and read, the credential locations they
may not, the network, signals), the config directories
searched and files read, the plugins a host would load (and what keeps one
from loading: not locked, not cached, a config value missing or invalid),
and the toolchains wasm tools build with. It
starts nothing and installs nothing.

Long lists are cut to their first entries; --verbose prints them whole.`,
		Example: `  toolhost doctor
  toolhost doctor --verbose
  toolhost doctor --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runDoctor(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "list every path of the sandbox's lists, not just the first")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "agent `name` whose external_directory rules widen the sandbox (default: the default agent)")
	return cmd
}

func runDoctor(ctx context.Context, g *Globals, opts *DoctorOptions) error {
	rep, err := Doctor(ctx, g.Dir, opts)
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(g.Streams.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.Write(g.Streams.Out, opts.Verbose)
	return nil
}

// Doctor builds the report for the project in dir ("": the working
// directory) without building a host: no tool is loaded, no server started.
func Doctor(ctx context.Context, dir string, opts *DoctorOptions) (*DoctorReport, error) {
	env := opts.Env
	if env == nil {
		env = os.Getenv
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	worktree := config.FindWorktree(dir)
	loaded, st, err := trust.Load(config.DirOptions{Directory: dir, Worktree: worktree, Env: env}, trust.StoreIn(dataDir(env)))
	if err != nil {
		return nil, err
	}
	reg, err := runtime.NewRegistry(runtime.Options{Config: loaded.Config, DataDir: dataDir(env), CacheDir: runtime.DefaultCacheDir(env), Directory: dir, Worktree: worktree})
	if err != nil {
		return nil, err
	}
	if _, err := reg.Agent(opts.Agent); err != nil {
		return nil, usageError{err}
	}
	tc := runtime.NewContext(runtime.Context{Directory: dir, Worktree: worktree, Agent: opts.Agent, Rulebook: reg, Config: loaded.Config, StateDirs: reg.StateDirs()}, nil, nil)
	policy := builtins.BashSandboxPolicy(tc, loaded.Config, env)
	rep := &DoctorReport{
		Sandbox: SandboxReport{Enabled: loaded.Config.Sandbox.On(), Network: policy.Network, Protected: policy.Protected, Plan: policy.Plan()},
		Config: ConfigReport{Dirs: loaded.Dirs, Files: loaded.Files,
			GrantsWithheld: runtime.GrantProblems(loaded.Config, toolFiles(loaded.Dirs, js.WhereFor(loaded.Config, loaded.Dirs, dir, worktree, env)))},
		Plugins: pluginReports(loaded, worktree, runtime.DefaultCacheDir(env)),
		Trust:   trustReport(st),
		MCP:     mcpReport(loaded.Config.Server, worktree, dataDir(env)),
	}
	abi, aerr := sandbox.Available()
	rep.Sandbox.ABI = abi
	switch {
	case !rep.Sandbox.Enabled:
		rep.Sandbox.Reason = `"sandbox": {"enabled": false} in the config`
	case aerr != nil:
		rep.Sandbox.Reason = aerr.Error()
	case !policy.Network && abi < sandbox.MinNetworkABI:
		rep.Sandbox.Reason = fmt.Sprintf(`"network": false needs Landlock ABI %d; every bash command is refused`, sandbox.MinNetworkABI)
	case !policy.Network && sandbox.SocketFilterSupported() != nil:
		rep.Sandbox.Reason = fmt.Sprintf(`"network": false cannot be enforced: %v; every bash command is refused`, sandbox.SocketFilterSupported())
	default:
		rep.Sandbox.Active = true
	}
	rep.Sandbox.Signals = abi >= sandbox.MinScopeABI
	switch {
	case rep.Sandbox.Active && sandbox.ForksCommands():
		rep.Sandbox.Forked = true
	case rep.Sandbox.Active:
		rep.Sandbox.Helper, rep.Sandbox.HelperProblem = sandbox.ProgramState()
	}
	rep.Sandbox.Hidden = []string{}
	for _, h := range rep.Sandbox.Plan.Read.Hidden {
		if _, err := os.Lstat(h.Path); err == nil {
			rep.Sandbox.Hidden = append(rep.Sandbox.Hidden, h.Grant)
		}
	}
	find := opts.FindToolchain
	if find == nil {
		find = toolbuild.FindToolchain
	}
	for _, l := range toolbuild.Langs() {
		tr := ToolchainReport{Lang: l}
		if v, err := find(ctx, l); err != nil {
			var te *toolbuild.ToolchainError
			if errors.As(err, &te) {
				tr.Problem = fmt.Sprintf("%s is missing; install %s", te.Missing, te.Install)
			} else {
				tr.Problem = err.Error()
			}
		} else {
			tr.Found, tr.Version = true, v
		}
		rep.Toolchains = append(rep.Toolchains, tr)
	}
	look := opts.LookPath
	if look == nil {
		look = exec.LookPath
	}
	rep.LanguageServers = []LanguageServerReport{}
	for _, s := range loaded.Config.LSP.Resolve() {
		lr := LanguageServerReport{Name: s.Name, Command: s.Command, Extensions: s.Extensions, Builtin: s.Builtin}
		if p, err := look(s.Command[0]); err != nil {
			lr.Problem = err.Error()
		} else {
			lr.Path = p
		}
		rep.LanguageServers = append(rep.LanguageServers, lr)
	}
	rep.JSEngine = js.CheckEngine(filepath.Join(runtime.DefaultCacheDir(env), "engines"))
	rep.PythonEngine = python.CheckEngine(filepath.Join(runtime.DefaultCacheDir(env), "engines"))
	return rep, nil
}

// dataDir is runtime.DefaultDataDir read through env.
func dataDir(env func(string) string) string {
	if d := env("XDG_DATA_HOME"); d != "" {
		return d + string(os.PathSeparator) + "toolhost"
	}
	return runtime.DefaultDataDir()
}

// Print writes the report for a person, long lists cut (Write).
func (r *DoctorReport) Print(w io.Writer) { r.Write(w, false) }

// maxListed is how many entries of a list the report shows unless
// verbose.
const maxListed = 6

// listed is the part of items the report shows, and a note on what it
// left out ("" when nothing).
func listed(items []string, verbose bool) ([]string, string) {
	if verbose || len(items) <= maxListed {
		return items, ""
	}
	return items[:maxListed], fmt.Sprintf("… and %d more (toolhost doctor --verbose)", len(items)-maxListed)
}

// Write writes the report for a person; verbose lists every entry of the
// long lists.
func (r *DoctorReport) Write(w io.Writer, verbose bool) {
	s := r.Sandbox
	fmt.Fprintln(w, "bash sandbox")
	switch {
	case s.Active:
		fmt.Fprintf(w, "  state:      active (Landlock ABI %d)\n", s.ABI)
	case !s.Enabled:
		fmt.Fprintf(w, "  state:      off (%s)\n", s.Reason)
	default:
		fmt.Fprintf(w, "  state:      inactive: %s; commands run under the permission rules alone\n", s.Reason)
	}
	if s.Network {
		fmt.Fprintln(w, "  network:    allowed")
	} else {
		fmt.Fprintln(w, "  network:    off: TCP connect and bind refused; UDP, MPTCP, raw and other sockets and other programs' abstract UNIX sockets refused (UNIX sockets by path stay open)")
	}
	switch {
	case s.Forked:
		fmt.Fprintln(w, "  confining:  by toolhost itself: each command is forked and confined before it starts (no helper program)")
	case s.Helper != "":
		fmt.Fprintf(w, "  helper:     %s\n", s.Helper)
	case s.HelperProblem != "":
		fmt.Fprintf(w, "  helper:     none (%s): toolhost starts itself to confine commands, 10 ms or more per toolhost call bash; install toolhost-sandbox of the same version beside it\n", s.HelperProblem)
	}
	if s.Signals {
		fmt.Fprintln(w, "  signals:    only to the command's own processes")
	} else {
		fmt.Fprintln(w, "  signals:    unrestricted (needs Landlock ABI 6)")
	}
	column := func(label string, items []string) {
		items, more := listed(items, verbose)
		if more != "" {
			items = append(items, more)
		}
		for _, it := range items {
			fmt.Fprintf(w, "%s%s\n", label, it)
			label = "              "
		}
	}
	if s.Plan.Read.Confined {
		var paths []string
		for _, g := range s.Plan.Read.Grants {
			paths = append(paths, g.Path)
		}
		column("  readable:   ", paths)
		fmt.Fprintln(w, `              (external_directory denies outside the project; add "sandbox": {"readable": [...]} for more)`)
	} else {
		fmt.Fprintln(w, "  readable:   everything but the credential locations")
	}
	if len(s.Hidden) > 0 {
		hidden, more := listed(s.Hidden, verbose)
		fmt.Fprintf(w, "  hidden:     %s (never read or written; grant one by name: \"sandbox\": {\"readable\": [\"~/.ssh\"]})\n", strings.Join(hidden, ", "))
		if more != "" {
			fmt.Fprintf(w, "              %s\n", more)
		}
	}
	var writable []string
	for _, g := range s.Plan.Grants {
		writable = append(writable, g.Path)
	}
	column("  writable:   ", writable)
	for _, c := range s.Plan.Carved {
		fmt.Fprintf(w, "  carved:     %s (its entries are writable, one by one; new ones cannot be created: toolhost's state or a credential lies beneath)\n", c)
	}
	fmt.Fprintf(w, "  protected:  %s\n", strings.Join(s.Protected, ", "))
	for _, sk := range s.Plan.Skipped {
		fmt.Fprintf(w, "  skipped:    %s (%s)\n", sk.Path, sk.Reason)
	}
	r.Trust.print(w)
	fmt.Fprintln(w, "config")
	fmt.Fprintf(w, "  searched:   %s\n", strings.Join(r.Config.Dirs, ", "))
	if len(r.Config.Files) == 0 {
		fmt.Fprintln(w, "  files:      none (defaults)")
	}
	for i, f := range r.Config.Files {
		if i == 0 {
			fmt.Fprintf(w, "  files:      %s\n", f)
		} else {
			fmt.Fprintf(w, "              %s\n", f)
		}
	}
	for _, g := range r.Config.GrantsWithheld {
		fmt.Fprintf(w, "  withheld:   %s: %s\n", g.File, g.Reason)
	}
	fmt.Fprintln(w, "language servers (diagnostics after edits)")
	if len(r.LanguageServers) == 0 {
		fmt.Fprintln(w, "  none (\"lsp\": false)")
	}
	for _, l := range r.LanguageServers {
		exts := strings.Join(l.Extensions, " ")
		switch {
		case l.Path != "":
			fmt.Fprintf(w, "  %-14s %s (%s)\n", l.Name, l.Path, exts)
		case l.Builtin:
			fmt.Fprintf(w, "  %-14s not installed (%s not on PATH; %s files get no diagnostics)\n", l.Name, l.Command[0], exts)
		default:
			fmt.Fprintf(w, "  %-14s missing: %s; fix \"lsp\".%s.command\n", l.Name, l.Problem, l.Name)
		}
	}
	printPlugins(w, r.Plugins)
	r.MCP.print(w)
	fmt.Fprintln(w, "toolchains")
	for _, t := range r.Toolchains {
		if t.Found {
			fmt.Fprintf(w, "  %-14s %s\n", t.Lang, t.Version)
		} else {
			fmt.Fprintf(w, "  %-14s missing: %s\n", t.Lang, t.Problem)
		}
	}
	for _, e := range []struct {
		name string
		st   npmengine.Status
	}{{"JS engine", r.JSEngine}, {"Python engine", r.PythonEngine}} {
		fmt.Fprintln(w, e.name)
		fmt.Fprintf(w, "  version:    %s\n", e.st.Version)
		fmt.Fprintf(w, "  path:       %s\n", e.st.Path)
		if e.st.Ready {
			fmt.Fprintln(w, "  state:      ready (sha256 verified)")
		} else {
			fmt.Fprintf(w, "  state:      %s\n", e.st.Problem)
		}
	}
}

// toolFiles lists the wasm and JS tool files of dirs (and OpenCode's
// folders, as where says) by file name, without loading any: what doctor
// checks grants against. A file's tools are named after it unless it
// names them otherwise, which only loading it tells.
func toolFiles(dirs []string, where js.Where) []config.ToolFile {
	var out []config.ToolFile
	for _, f := range wasm.Files(dirs) {
		out = append(out, config.ToolFile{Names: []string{strings.TrimSuffix(filepath.Base(f), ".wasm")}, Path: f})
	}
	for _, f := range js.Files(where) {
		out = append(out, config.ToolFile{Names: []string{strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))}, Path: f})
	}
	return out
}
