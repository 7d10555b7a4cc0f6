package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

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
matched before it and were overridden.`,
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
	ex := permission.Explain(opts.Permission, opts.Pattern, agent.Rules)
	if opts.Session != "" {
		// Weigh the session's approvals exactly as a call would.
		if ex, err = h.Registry.Permissions().Explain(ctx, agent.Rules, opts.Session, opts.Permission, opts.Pattern); err != nil {
			return err
		}
	}
	_, err = fmt.Fprint(g.Streams.Out, ex.Format())
	return err
}
