package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/internal/confine/trust"
	"github.com/toolhost/toolhost/runtime/config"
)

// ExitUntrusted is `toolhost trust --status`'s exit code for a project that
// is not trusted.
const ExitUntrusted = 1

// TrustOptions are the flags of `toolhost trust`.
type TrustOptions struct {
	Yes, Revoke, Status bool
	// Env reads environment variables; tests replace it. Nil: os.Getenv.
	Env func(string) string
}

// NewCmdTrust reviews and trusts the project's own config and tools.
func NewCmdTrust(g *Globals, opts *TrustOptions) *cobra.Command {
	if opts == nil {
		opts = &TrustOptions{}
	}
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Review and trust this project's config and tools",
		Long: `A project's own toolhost.json, .toolhost/ and .opencode/ can start programs
(MCP and language servers, plugins, tools), grant capabilities and loosen
permission rules. Until a person trusts that content, toolhost runs on the
user's own config: only the project's deny rules apply and its tools are not
started. trust shows what the project's config would run, grant and loosen,
and the files with their digests, then asks to confirm. Trust is by content:
when any of those files changes, the project needs trust again.

The trusted digests live in the data directory (trust.json). Directories in
` + trust.EnvTrusted + ` (separated as in PATH) are trusted whatever
they hold, for CI.`,
		Example: `  toolhost trust
  toolhost trust --yes
  toolhost trust --status && echo trusted
  toolhost trust --revoke`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTrust(cmd.Context(), g, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&opts.Yes, "yes", "y", false, "trust without asking (for scripts, after reviewing the summary)")
	f.BoolVar(&opts.Revoke, "revoke", false, "forget every trusted digest of this project")
	f.BoolVar(&opts.Status, "status", false, "say whether the project is trusted; exit 0 if so, 1 if not")
	cmd.MarkFlagsMutuallyExclusive("revoke", "status", "yes")
	return cmd
}

// trustDirs is where the project of g.Dir is, as the host finds it.
func trustDirs(g *Globals, env func(string) string) (config.DirOptions, error) {
	dir := g.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return config.DirOptions{}, fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	return config.DirOptions{Directory: dir, Worktree: config.FindWorktree(dir), Env: env}, nil
}

func runTrust(ctx context.Context, g *Globals, opts *TrustOptions) error {
	env := opts.Env
	if env == nil {
		env = os.Getenv
	}
	d, err := trustDirs(g, env)
	if err != nil {
		return err
	}
	store := trust.StoreIn(dataDir(env))
	out := g.Streams.Out
	if opts.Revoke {
		had, err := store.Revoke(d.Worktree)
		if err != nil {
			return err
		}
		if had {
			fmt.Fprintf(out, "project %s is no longer trusted\n", d.Worktree)
		} else {
			fmt.Fprintf(out, "project %s was not trusted\n", d.Worktree)
		}
		return nil
	}
	st := trust.Check(d, store)
	if opts.Status {
		printTrustStatus(out, st)
		if !st.Trusted {
			return &ExitError{Code: ExitUntrusted, Err: errors.New("project not trusted")}
		}
		return nil
	}
	if st.Manifest == nil {
		return st.Err
	}
	m := st.Manifest
	if m.Empty() {
		fmt.Fprintf(out, "project %s has no config or tool files of its own: nothing to trust\n", m.Worktree)
		return nil
	}
	// The summary is of the bytes the digest covers (Reviewer.Load): a
	// file swapped after the scan is refused, not shown in its new form.
	full, lerr := trust.Reviewer{Dirs: d, Store: store}.Load(m)
	fmt.Fprintf(out, "project %s\n", m.Worktree)
	if errors.Is(lerr, trust.ErrChanged) {
		return fmt.Errorf("not trusted: %w", lerr)
	}
	if lerr != nil {
		fmt.Fprintf(out, "its config does not load, so what it would do cannot be shown:\n%v\n", lerr)
		return fmt.Errorf("not trusted: fix the config first")
	}
	for _, l := range trust.Summarize(full, m).Lines() {
		fmt.Fprintln(out, l)
	}
	fmt.Fprintln(out, "Files:")
	for _, e := range m.Entries {
		what := e.Kind
		if e.Link != "" {
			what += " -> " + trust.Printable(e.Link)
		}
		sum := e.SHA256
		if len(sum) > 12 {
			sum = sum[:12]
		}
		fmt.Fprintf(out, "  %-12s  %s (%s)\n", sum, trust.Printable(e.Rel), what)
	}
	fmt.Fprintf(out, "Digest: %s\n", m.Digest)
	if st.Trusted {
		fmt.Fprintln(out, "This content is trusted already.")
		return nil
	}
	if st.Err != nil && !errors.Is(st.Err, trust.ErrTooLarge) {
		// A store that does not parse is not overwritten.
		return st.Err
	}
	if !opts.Yes {
		t := g.Streams.terminal()
		if t == nil {
			return usageError{errors.New("no terminal to confirm at; review the summary above and run `toolhost trust --yes` to trust it")}
		}
		fmt.Fprint(t, "Trust this content, letting it run and grant what is listed above? [y/N] ")
		line, err := t.readLine(ctx)
		if err != nil {
			return err
		}
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(out, "not trusted")
			return &ExitError{Code: ExitUntrusted, Err: errors.New("not trusted: the answer was not yes")}
		}
	}
	if err := store.Trust(m.Worktree, m.Digest, trust.Who()); err != nil {
		return err
	}
	fmt.Fprintf(out, "trusted %s (%s); it needs trust again when any of these files changes\n", m.Worktree, m.Digest)
	return nil
}

func printTrustStatus(w io.Writer, st trust.Status) {
	switch {
	case st.Trusted && (st.Manifest == nil || st.Manifest.Empty()):
		fmt.Fprintf(w, "trusted: project %s has no config or tool files of its own\n", st.Worktree())
	case st.Trusted && st.ByEnv:
		fmt.Fprintf(w, "trusted: project %s is under %s\n", st.Worktree(), trust.EnvTrusted)
	case st.Trusted:
		fmt.Fprintf(w, "trusted: project %s (%s)\n", st.Worktree(), st.Manifest.Digest)
	default:
		fmt.Fprintf(w, "not trusted: %s\n", st.Notice())
	}
}

// noticeTrust says once per command, on stderr, that the project is not
// trusted and how to trust it.
func (g *Globals) noticeTrust(st trust.Status) {
	if st.Trusted || g.trustNoticed {
		return
	}
	g.trustNoticed = true
	fmt.Fprintf(g.Streams.ErrOut, "%s %s\n", g.Streams.errColors().yellow("toolhost: warning:"), st.Notice())
}

// TrustReport is the project's trust in `toolhost doctor`.
type TrustReport struct {
	Project string `json:"project"`
	Trusted bool   `json:"trusted"`
	// Digest is the content's digest; "" when there is nothing to trust.
	Digest string `json:"digest,omitempty"`
	// Notice says, for an untrusted project, what that means and the
	// command that trusts it.
	Notice string `json:"notice,omitempty"`
}

func trustReport(st trust.Status) TrustReport {
	r := TrustReport{Project: st.Worktree(), Trusted: st.Trusted, Notice: st.Notice()}
	if st.Manifest != nil {
		r.Digest = st.Manifest.Digest
	}
	return r
}

func (r TrustReport) print(w io.Writer) {
	fmt.Fprintln(w, "project trust")
	switch {
	case r.Trusted && r.Digest == "":
		fmt.Fprintln(w, "  state:      nothing to trust (no config or tool files of the project's own)")
	case r.Trusted:
		fmt.Fprintf(w, "  state:      trusted (%s)\n", r.Digest)
	default:
		fmt.Fprintf(w, "  state:      NOT trusted: %s\n", r.Notice)
	}
}

// loadConfig loads the config of the project in dir for a command that
// runs without a host, as its trust allows (trust.Load: the bytes loaded
// are the bytes judged); an untrusted project is said once on stderr.
func (g *Globals) loadConfig(dir string, env func(string) string) (*config.Loaded, trust.Status, error) {
	d := config.DirOptions{Directory: dir, Worktree: config.FindWorktree(dir), Env: env}
	loaded, st, err := trust.Load(d, trust.StoreIn(dataDir(env)))
	g.noticeTrust(st)
	return loaded, st, err
}
