package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/internal/engines/toolbuild"
	"github.com/toolhost/toolhost/internal/observe/progress"
	"github.com/toolhost/toolhost/plugins/js"
	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
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
  toolhost tool new greet --lang ts           # TypeScript, OpenCode's format: .toolhost/tool/greet.ts, no build
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
	cmd.Flags().StringVar(&opts.Lang, "lang", string(toolbuild.LangGo), "source `language`: "+strings.Join(append(langs, "ts", "js", "python"), ", "))
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
	if js.IsLang(opts.Lang) {
		return runToolNewJS(g, opts)
	}
	if python.IsLang(opts.Lang) {
		return runToolNewPython(g, opts)
	}
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

// ToolBuildOptions are the arguments and flags of `toolhost tool build`.
type ToolBuildOptions struct {
	Names []string
	Force bool
}

// NewCmdToolBuild builds the tool sources.
func NewCmdToolBuild(g *Globals, runF func(context.Context, *Globals, *ToolBuildOptions) error) *cobra.Command {
	opts := &ToolBuildOptions{}
	cmd := &cobra.Command{
		Use:   "build [NAME...]",
		Short: "Build tool sources in .toolhost/tools-src into .toolhost/tool/<name>.wasm",
		Long: `Build the named tool sources, or every one, each with its language's own
toolchain. A tool whose sources, guest SDK and toolchain are unchanged since
its last build is skipped (--force rebuilds it). On a terminal each step is
shown as it runs, with its time.

A failed build keeps the module built before: agents keep the old tool, and
` + "`toolhost tools`" + ` marks it stale with the error until a build succeeds.
Paths in compiler messages are relative to where you ran the command.`,
		Example: `  toolhost tool build
  toolhost tool build hello
  toolhost tool build --force`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runToolBuild(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "rebuild tools that are up to date")
	return cmd
}

func runToolBuild(ctx context.Context, g *Globals, opts *ToolBuildOptions) error {
	cfgDir, err := projectConfigDir(g)
	if err != nil {
		return err
	}
	wd, _ := os.Getwd()
	// Each built module gets its tool list embedded and the compilation
	// cache the host uses warmed, so listing compiles nothing and the
	// first call compiles from the cache (wasm.Engine.EmbedToolList).
	eng := wasm.NewEngine(wasm.EngineOptions{
		CacheDir: filepath.Join(runtime.DefaultCacheDir(os.Getenv), "wasm"),
		Logger:   g.logger(),
	})
	defer eng.Close(context.WithoutCancel(ctx))
	bo := toolbuild.Options{Names: opts.Names, Force: opts.Force, RelativeTo: wd, Prepare: eng.EmbedToolList}
	ec, oc := g.Streams.errColors(), g.Streams.outColors()
	// Each step (a toolchain installed, a tool compiled) is a task of the
	// command's progress reporter.
	type step struct {
		kind toolbuild.EventKind
		name string
	}
	tasks := map[step]*progress.Task{}
	bo.Progress = func(e toolbuild.Event) {
		k := step{e.Kind, e.Name}
		if !e.Done {
			tasks[k] = progress.Start(ctx, e.Message)
			return
		}
		tasks[k].Done(e.Message, nil)
		delete(tasks, k)
	}
	results, err := toolbuild.BuildTools(ctx, cfgDir, bo)
	var unknown *toolbuild.UnknownToolError
	if errors.As(err, &unknown) {
		return usageError{err}
	}
	for _, r := range results {
		switch {
		case r.Err != nil:
			fmt.Fprintf(g.Streams.ErrOut, "%s %s (%s): %v\n", ec.red("✗"), r.Name, r.Lang, r.Err)
		case r.UpToDate:
			fmt.Fprintf(g.Streams.Out, "= %s (%s) up to date: %s\n", r.Name, r.Lang, displayPath(wd, r.Output))
		default:
			fmt.Fprintf(g.Streams.Out, "%s %s (%s) → %s\n", oc.green("✓"), r.Name, r.Lang, displayPath(wd, r.Output))
		}
	}
	if err == nil && len(results) == 0 {
		return errors.New("no tool sources in " + filepath.Join(cfgDir, "tools-src") + "; create one with `toolhost tool new <name>`")
	}
	return err
}

// displayPath is p relative to dir when it is inside it, else p.
func displayPath(dir, p string) string {
	if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// runToolNewJS scaffolds a TypeScript or JavaScript tool: a file in
// .toolhost/tool/ that loads as it is, without a build.
func runToolNewJS(g *Globals, opts *ToolNewOptions) error {
	cfgDir, err := projectConfigDir(g)
	if err != nil {
		return err
	}
	path, hint, err := js.Scaffold(cfgDir, opts.Name, opts.Lang)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(g.Streams.Out, "created %s\nnext: edit it, then run `toolhost tools` (no build step)\n", path)
	if hint != "" {
		fmt.Fprintf(g.Streams.Out, "note: %s\n", hint)
	}
	return nil
}

func runToolNewPython(g *Globals, opts *ToolNewOptions) error {
	cfgDir, err := projectConfigDir(g)
	if err != nil {
		return err
	}
	path, test, err := python.Scaffold(cfgDir, opts.Name)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(g.Streams.Out, "created %s\ncreated %s\nnext: edit it, then run `toolhost tools` (no build step); test it with `python3 -m unittest discover -s %s`\n",
		path, test, filepath.Dir(test))
	return nil
}
