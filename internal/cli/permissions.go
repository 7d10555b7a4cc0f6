package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/confine/shellperm"
	"github.com/toolhost/toolhost/runtime/permission"
)

// ExplainOptions are the arguments of `toolhost permissions explain`.
type ExplainOptions struct {
	Permission string
	Pattern    string
	Agent      string
	Session    string
}

// NewCmdPermissions groups permission commands.
func NewCmdPermissions(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: "Inspect permission rules",
	}
	cmd.AddCommand(NewCmdExplain(g, nil))
	return cmd
}

// NewCmdExplain prints which rule decides a permission request.
func NewCmdExplain(g *Globals, runF func(context.Context, *Globals, *ExplainOptions) error) *cobra.Command {
	opts := &ExplainOptions{}
	cmd := &cobra.Command{
		Use:   "explain <permission> <pattern>",
		Short: "Show the decision for a permission and pattern, and the rule that made it",
		Long: `Evaluate a permission request the way a tool call would: the agent's rules
(defaults, the agent's own, your config), then the session's approvals, the
last matching rule winning. The first line is the decision alone (allow, ask
or deny); then the deciding rule with its file and line, then the rules that
matched before it and were overridden.

For bash the pattern is a whole command line, analysed exactly as the bash
tool analyses a call: the first line is the overall decision (deny over ask
over allow), then one line per request (external_directory, edit, bash) with
its decision and deciding rule, and, for a command another program runs
(awk's system(), tar --to-command, git -c alias.x='!cmd') or one that
cannot be read before it runs, why it is asked.`,
		Example: `  toolhost permissions explain bash "git push origin main"
  toolhost permissions explain read .env --agent explore
  toolhost permissions explain edit src/main.go --session work`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Permission, opts.Pattern = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runExplain(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "agent `name` (default build)")
	cmd.Flags().StringVar(&opts.Session, "session", "", "include this session's approvals")
	return cmd
}

func runExplain(ctx context.Context, g *Globals, opts *ExplainOptions) error {
	h, err := g.host(ctx, nil, false)
	if err != nil {
		return err
	}
	defer h.Close(context.WithoutCancel(ctx))
	agent, err := h.Registry.Agent(opts.Agent)
	if err != nil {
		return usageError{err}
	}
	if opts.Permission == builtins.PermissionBash {
		return explainBash(ctx, g, h, agent.Rules, opts)
	}
	ex := permission.Explain(opts.Permission, opts.Pattern, agent.Rules)
	if opts.Session != "" {
		// Weigh the session's approvals exactly as a call would.
		if ex, err = h.Registry.Permissions().Explain(ctx, agent.Rules, opts.Session, opts.Permission, opts.Pattern); err != nil {
			return err
		}
	}
	decision, rest, _ := strings.Cut(ex.Format(), "\n")
	_, err = fmt.Fprintf(g.Streams.Out, "%s\n%s", g.Streams.outColors().decision(decision), rest)
	return err
}

// explainBash runs the bash tool's own analysis on a command line, so the
// answer is the one a real call gets: the overall decision first (deny over
// ask over allow across every request), then one line per request pattern
// with its decision and the deciding rule.
func explainBash(ctx context.Context, g *Globals, h *host.Host, rules permission.Ruleset, opts *ExplainOptions) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	reqs, err := shellperm.Requests(opts.Pattern, wd, h.Worktree, nil)
	if err != nil {
		return usageError{err}
	}
	var all []permission.Explanation
	var b strings.Builder
	c := g.Streams.outColors()
	for _, req := range reqs {
		var ex []permission.Explanation
		if opts.Session != "" {
			if ex, err = h.Registry.Permissions().ExplainRequest(ctx, rules, opts.Session, req); err != nil {
				return err
			}
		} else {
			ex = permission.ExplainRequest(req, rules)
		}
		for _, e := range ex {
			mark := ""
			if _, ok := req.Unresolved[e.Pattern]; ok {
				mark = " (unresolvable before it runs: only a rule matching anything applies)"
			}
			rule := e.Rule.String()
			if e.Rule.Source == permission.NoRuleSource {
				rule = permission.NoRuleSource
			}
			fmt.Fprintf(&b, "%s %s %q%s\n      decided by: %s\n", c.decision(fmt.Sprintf("%-5s", e.Decision)), e.Permission, e.Pattern, mark, rule)
			if why := requestReason(req, e.Pattern); why != "" {
				fmt.Fprintf(&b, "      why: %s\n", why)
			}
		}
		all = append(all, ex...)
	}
	if len(reqs) == 0 {
		b.WriteString("(the command line runs nothing that needs permission)\n")
	}
	_, err = fmt.Fprintf(g.Streams.Out, "%s\n%s", c.decision(string(permission.Strictest(all))), b.String())
	return err
}

// requestReason is why the analysis asks a pattern it does not show as a
// command of the line (awk's system(), tar --to-command, a script the line
// writes), from the request's "reasons" metadata.
func requestReason(req permission.Request, pattern string) string {
	reasons, _ := req.Metadata["reasons"].(map[string]string)
	return reasons[pattern]
}
