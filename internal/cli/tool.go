package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/internal/toolbuild"
	"github.com/toolhost/toolhost/runtime/config"
)

// ToolNewOptions are the arguments of `toolhost tool new`.
type ToolNewOptions struct {
	Name string
	Lang string
}

// NewCmdTool groups the commands that write wasm tools.
func NewCmdTool(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tool",
		Short: "Write your own wasm tools",
		Long: `Scaffold and build WebAssembly tools. Sources live in the project's
.toolhost/tools-src/<name>; built modules go to .toolhost/tool/<name>.wasm,
where every agent picks them up.`,
	}
	cmd.AddCommand(NewCmdToolNew(g, nil), NewCmdToolBuild(g, nil))
	return cmd
}

// NewCmdToolNew scaffolds a tool source.
func NewCmdToolNew(g *Globals, runF func(context.Context, *Globals, *ToolNewOptions) error) *cobra.Command {
	opts := &ToolNewOptions{}
	cmd := &cobra.Command{
		Use:   "new <name>",
		Short: "Scaffold a wasm tool in .toolhost/tools-src/<name>",
		Long: `Scaffold a wasm tool in .toolhost/tools-src/<name> from a template in the
chosen language, with the guest SDK vendored beside it in
.toolhost/tools-src/.sdk. ` + "`toolhost tool build`" + ` builds it with the language's
own toolchain and names what to install when that is missing.`,
		Example: `  toolhost tool new jira                      # Go, built with the standard Go toolchain
  toolhost tool new wc --lang c               # C: clang-14 and wasi-libc
  toolhost tool new slug --lang rust          # Rust: rustc with a wasm target, no crates
  toolhost tool new fmt --lang assemblyscript # AssemblyScript: Node.js and npm
  toolhost tool new tiny --lang d             # D: LDC and wasm-ld
  toolhost tool build && toolhost call jira '{}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runToolNew(cmd.Context(), g, opts)
		},
	}
	langs := make([]string, 0, len(toolbuild.Langs()))
	for _, l := range toolbuild.Langs() {
		langs = append(langs, string(l))
	}
	cmd.Flags().StringVar(&opts.Lang, "lang", string(toolbuild.LangGo), "source `language`: "+strings.Join(langs, ", "))
	return cmd
}

// projectConfigDir is the project's .toolhost directory: in the working
// directory's worktree root.
func projectConfigDir(g *Globals) (string, error) {
	dir := g.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(config.FindWorktree(abs), ".toolhost"), nil
}

func runToolNew(_ context.Context, g *Globals, opts *ToolNewOptions) error {
	lang, err := toolbuild.ParseLang(opts.Lang)
	if err != nil {
		return usageError{fmt.Errorf("--lang: %w", err)}
	}
	cfgDir, err := projectConfigDir(g)
	if err != nil {
		return err
	}
	dir, err := toolbuild.New(cfgDir, opts.Name, lang)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(g.Streams.Out, "created %s\nnext: edit it, then run `toolhost tool build` and `toolhost tools`\n", dir)
	return nil
}

// NewCmdToolBuild builds every tool source.
func NewCmdToolBuild(g *Globals, runF func(context.Context, *Globals) error) *cobra.Command {
	return &cobra.Command{
		Use:     "build",
		Short:   "Build every source in .toolhost/tools-src into .toolhost/tool/<name>.wasm",
		Example: "  toolhost tool build",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), g)
			}
			return runToolBuild(cmd.Context(), g)
		},
	}
}

func runToolBuild(ctx context.Context, g *Globals) error {
	cfgDir, err := projectConfigDir(g)
	if err != nil {
		return err
	}
	results, err := toolbuild.Build(ctx, cfgDir)
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(g.Streams.ErrOut, "✗ %s (%s): %v\n", r.Name, r.Lang, r.Err)
			continue
		}
		fmt.Fprintf(g.Streams.Out, "✓ %s (%s) → %s\n", r.Name, r.Lang, r.Output)
	}
	if err == nil && len(results) == 0 {
		return errors.New("no tool sources in " + filepath.Join(cfgDir, "tools-src") + "; create one with `toolhost tool new <name>`")
	}
	return err
}
