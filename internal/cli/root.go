package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/agent"
	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/observe/progress"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Version is set at build time with -ldflags "-X github.com/toolhost/toolhost/internal/cli.Version=v1.2.3".
var Version = ""

// IOStreams are the command's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// TTY, when non-nil, is where interactive prompts read answers (a
	// person at a terminal). Nil means no person can be asked.
	TTY io.ReadWriter
	// OutTerminal and ErrTerminal say that Out and ErrOut are a person's
	// terminal. When both are, live progress shown on ErrOut is not
	// printed again with the final output on Out.
	OutTerminal, ErrTerminal bool
	// OutColor, ErrColor and TTYColor turn on colour for Out, ErrOut and
	// prompts on TTY (colorOn decides them; off by default, so tests and
	// pipes see plain text).
	OutColor, ErrColor, TTYColor bool

	term *terminal
}

func (s *IOStreams) outColors() palette { return palette{s.OutColor} }
func (s *IOStreams) errColors() palette { return palette{s.ErrColor} }

// terminal returns the shared terminal, or nil without a TTY.
func (s *IOStreams) terminal() *terminal {
	if s.TTY == nil {
		return nil
	}
	if s.term == nil {
		s.term = newTerminal(s.TTY)
	}
	return s.term
}

// Globals are flags every command takes.
type Globals struct {
	Dir      string
	LogLevel string
	// LogFormat is "text" (the default, for people) or "json" (one
	// object a line, for log collectors).
	LogFormat string
	Streams   IOStreams
	// NewHost builds the host; tests replace it.
	NewHost func(ctx context.Context, opts host.Options) (*host.Host, error)

	trustNoticed bool // the untrusted-project notice was shown (trust.go)
}

func (g *Globals) logger() *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(g.LogLevel)); err != nil {
		lvl = slog.LevelWarn
	}
	if g.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(g.Streams.ErrOut, &slog.HandlerOptions{Level: lvl}))
	}
	return slog.New(slog.NewTextHandler(g.Streams.ErrOut, &slog.HandlerOptions{Level: lvl}))
}

// progress is the reporter of work a person waits on (fetching an engine,
// bundling, compiling, building, fetching a plugin): a line rewritten in
// place when stderr is a terminal, else a log record at the start and the
// end of each task (Info: shown with --log-level info).
func (g *Globals) progress() *progress.Reporter {
	if g.Streams.ErrTerminal {
		return progress.NewTerminal(g.Streams.ErrOut)
	}
	return progress.NewLog(g.logger())
}

func (g *Globals) host(ctx context.Context, asker permission.Asker, withQuestions bool, more ...func(*host.Options)) (*host.Host, error) {
	opts := host.Options{Directory: g.Dir, Asker: asker, Logger: g.logger()}
	for _, f := range more {
		f(&opts)
	}
	if withQuestions && g.Streams.TTY != nil {
		opts.Questioner = &ttyQuestioner{tty: g.Streams.terminal()}
	}
	newHost := g.NewHost
	if newHost == nil {
		newHost = host.New
	}
	h, err := newHost(ctx, opts)
	if err != nil {
		return nil, err
	}
	// The task tool runs subagents through the agent loop, a front end the
	// host does not know; the CLI is where both meet.
	subagents := agent.New(agent.Options{Registry: h.Registry, Store: h.Store, Env: os.Getenv, Logger: opts.Logger, Directory: h.Directory, Worktree: h.Worktree})
	h.Registry.Add(runtime.SourceBuiltin, builtins.Task(subagents))
	// Typos in tool ids and permission keys are visible only now that
	// every tool is known; they are warnings, since the config is valid.
	for _, k := range h.UnknownConfigKeys() {
		fmt.Fprintf(g.Streams.ErrOut, "%s %s\n", g.Streams.errColors().yellow("toolhost: warning:"), k)
	}
	g.noticeTrust(h.TrustStatus())
	return h, nil
}

// NewRootCmd builds the toolhost command tree.
func NewRootCmd(g *Globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "toolhost",
		Short: "A plugin host for the tools an LLM agent calls",
		Long: `toolhost runs the tools an LLM agent calls — built-in file, search, shell and
web tools, and sandboxed WebAssembly tools from .toolhost/tool/ — behind one
permission system, and serves them to a CLI, an agent loop or MCP clients.`,
		Example: `  toolhost tools
  toolhost call read '{"filePath":"README.md"}'
  toolhost permissions explain bash "git push"`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if g.LogFormat != "text" && g.LogFormat != "json" && g.LogFormat != "" {
				return usageError{fmt.Errorf("--log-format %q: want text or json", g.LogFormat)}
			}
			cmd.SetContext(progress.With(cmd.Context(), g.progress()))
			return nil
		},
	}
	versionFlag(root)
	root.PersistentFlags().StringVarP(&g.Dir, "dir", "C", "", "project `directory` (default: the current directory)")
	root.PersistentFlags().StringVar(&g.LogLevel, "log-level", "warn", "log `level` on stderr: debug, info, warn, error")
	root.PersistentFlags().StringVar(&g.LogFormat, "log-format", "text", "log `format` on stderr: text, or json (one object a line)")
	root.SetOut(g.Streams.Out)
	root.SetErr(g.Streams.ErrOut)
	root.SetIn(g.Streams.In)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(NewCmdTools(g, nil), NewCmdCall(g, nil), NewCmdPermissions(g), NewCmdVersion(g))
	root.AddCommand(NewCmdMCP(g, nil))
	root.AddCommand(NewCmdRun(g))
	root.AddCommand(NewCmdTool(g))
	root.AddCommand(NewCmdPlugin(g, nil))
	root.AddCommand(NewCmdDoctor(g, nil))
	root.AddCommand(NewCmdTrust(g, nil))
	root.AddCommand(NewCmdMigrate(g, nil))
	root.AddCommand(NewCmdInbox(g, nil))
	markRuns(root)
	return root
}

// Main runs the CLI with the process's streams and returns the exit code.
func Main(args []string) int {
	g := &Globals{Streams: IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		OutTerminal: isTerminal(os.Stdout), ErrTerminal: isTerminal(os.Stderr)}}
	g.Streams.OutColor = colorOn(g.Streams.OutTerminal, os.Getenv)
	g.Streams.ErrColor = colorOn(g.Streams.ErrTerminal, os.Getenv)
	if tty := openTTY(); tty != nil { // not a typed nil in the interface
		defer tty.Close()
		g.Streams.TTY = tty
		g.Streams.TTYColor = colorOn(true, os.Getenv)
	}
	root := NewRootCmd(g)
	root.SetArgs(args)
	ctx, stop := signalContext()
	defer stop()
	err := Execute(ctx, root)
	if err != nil {
		c := g.Streams.errColors()
		fmt.Fprintln(g.Streams.ErrOut, c.red(c.bold("toolhost:")), personMessage(err))
	}
	return ExitCode(err)
}

func versionString() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionFlag gives root --version (-v), printing what `toolhost version`
// prints. Not cobra's own (Command.Version): its output, "toolhost version
// X", can be changed only with SetVersionTemplate, which links
// text/template, and with it 5 MB of methods the linker can no longer
// drop (internal/content/textfill says why). The root runs nothing, so cobra hands
// `toolhost --version` to the help function, which prints the version
// when the flag is set (and --help is not, which wins, as with cobra's).
func versionFlag(root *cobra.Command) {
	version := root.Flags().BoolP("version", "v", false, "version for "+root.Name())
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if asked, _ := c.Flags().GetBool("help"); c == root && *version && !asked {
			fmt.Fprintf(c.OutOrStdout(), "toolhost %s\n", versionString())
			return
		}
		help(c, args)
	})
}

// NewCmdVersion prints the version.
func NewCmdVersion(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the toolhost version",
		Example: "  toolhost version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(g.Streams.Out, "toolhost %s\n", versionString())
			return nil
		},
	}
}
