package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/agent"
	"github.com/toolhost/toolhost/internal/engines/toolbuild"
	"github.com/toolhost/toolhost/runtime"
)

// ToolsOptions are the flags of `toolhost tools`.
type ToolsOptions struct {
	JSON  bool
	Agent string
	Model string
}

// NewCmdTools lists the tools an agent gets. runF replaces the behaviour in
// tests of flag parsing; nil means runTools.
func NewCmdTools(g *Globals, runF func(context.Context, *Globals, *ToolsOptions) error) *cobra.Command {
	opts := &ToolsOptions{}
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the tools an agent gets",
		Long: `List the tools offered to an agent on a model: built-in tools, wasm tools
from .toolhost/tool/, plugin and MCP tools, after the model, config and
permission filters. Modules that failed to load are reported on stderr.`,
		Example: `  toolhost tools
  toolhost tools --json --agent explore
  toolhost tools --model gpt-5   # apply_patch replaces edit and write
  toolhost tools --json --model gemini-2.5-pro   # schemas as Gemini receives them`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runTools(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of {id, source, description, parameters}")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "agent `name` (default: the configured default agent, else build)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "model `id`, for model-specific tool choices")
	return cmd
}

func runTools(ctx context.Context, g *Globals, opts *ToolsOptions) error {
	h, err := g.host(ctx, nil, true)
	if err != nil {
		return err
	}
	defer h.Close(context.WithoutCancel(ctx))
	for _, le := range h.LoadErrors {
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: skipped %s\n", le)
	}
	for _, gp := range h.GrantProblems {
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: grant withheld from %s\n", gp)
	}
	if opts.Model == "" {
		opts.Model = h.Config.Model
	}
	tools, err := h.Registry.Tools(ctx, opts.Model, opts.Agent)
	if err != nil {
		return usageError{err}
	}
	if opts.Model != "" {
		// Show the schemas as that model's provider will receive them.
		strict := false
		if ep, err := agent.ResolveEndpoint(h.Config, opts.Model, os.Getenv); err == nil {
			strict = ep.Strict
		}
		for i := range tools {
			tools[i].Parameters = agent.TransformSchema(opts.Model, strict, tools[i].Parameters)
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(g.Streams.Out)
		enc.SetIndent("", "  ")
		if tools == nil {
			return enc.Encode([]any{})
		}
		return enc.Encode(tools)
	}
	stale := staleModules(g)
	tw := tabwriter.NewWriter(g.Streams.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSOURCE\tDESCRIPTION")
	for _, t := range tools {
		source := string(t.Source)
		if _, ok := stale.of(t.ID, t.Source); ok {
			source += " (stale)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.ID, source, firstLine(t.Description, 90))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(stale)) {
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: %s is stale: its last build failed, so the module built before is served; fix it and run `toolhost tool build %s`:\n%s\n", name, name, stale[name])
	}
	return nil
}

// stale maps a module name to the error of its last, failed build.
type stale map[string]string

// staleModules reads the project's stale markers (toolbuild.Stale).
func staleModules(g *Globals) stale {
	cfgDir, err := projectConfigDir(g)
	if err != nil {
		return nil
	}
	return toolbuild.Stale(cfgDir)
}

// of returns the failed build behind a wasm tool: its module's, for the
// tool named after the module or a named tool inside it (<module>_<name>).
func (s stale) of(id string, src runtime.Source) (string, bool) {
	if src != runtime.SourceWasm {
		return "", false
	}
	for name, msg := range s {
		if id == name || strings.HasPrefix(id, name+"_") {
			return msg, true
		}
	}
	return "", false
}

// firstLine returns the first sentence-ish line of s, at most n runes.
func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
