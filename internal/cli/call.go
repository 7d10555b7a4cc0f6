package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// CallOptions are the arguments and flags of `toolhost call`.
type CallOptions struct {
	Tool    string
	Args    string // JSON, or "-" for stdin
	Session string
	Agent   string
	Model   string
	Yes     bool
	JSON    bool
}

// NewCmdCall runs one tool call through the full wrapper.
func NewCmdCall(g *Globals, runF func(context.Context, *Globals, *CallOptions) error) *cobra.Command {
	opts := &CallOptions{}
	cmd := &cobra.Command{
		Use:   "call <tool> [ARGS_JSON | -]",
		Short: "Call one tool",
		Long: `Call one tool with JSON arguments (or "-" to read them from stdin), through
the same validation, permission, truncation and hook path an agent's calls
take. Live progress goes to stderr, with the tool's output as it grows when
stderr is a terminal; when stdout and stderr are the same terminal, output
already shown live is not printed again.

Calls share one session per project (the directory holding .git, else the
working directory): a file read by one call may be edited by the next, and
"always" answers, read stamps and todos carry over, as they would within
one agent session. --session <id> uses another session instead.

When a rule says "ask", a person at a terminal is asked (once, always,
reject, or reject with a message). Without a terminal nobody can answer: the
call is not run, exits 4, and the message says how to allow it: add a rule,
or pass --yes.

The tools it calls are the ones "toolhost tools" lists for the same agent
and model. A tool the agent is not offered — disabled by "tools": {"x": false},
denied outright by a permission rule, or behind a flag that is off — is
refused, as it is on every other route (MCP, batch, task, the agent loop);
the message names the config key that enables it.

` + exitStatusHelp(),
		Example: `  toolhost call read '{"filePath":"go.mod"}'
  echo '{"command":"git status","description":"Show status"}' | toolhost call bash - --yes
  toolhost call todowrite '{"todos":[{"content":"ship","status":"pending","priority":"high"}]}' --session work
  toolhost call glob '{"pattern":"**/*.go"}' --json`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tool = args[0]
			if len(args) > 1 {
				opts.Args = args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runCall(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "session `id`: approvals, read stamps and todos persist across calls with the same id (default: one session per project)")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "agent `name` whose permissions apply (default build)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "model `id` the call is made for")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "answer every permission question with once (rules that deny still deny)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the whole result {title, output, metadata, attachments} as JSON")
	return cmd
}

func runCall(ctx context.Context, g *Globals, opts *CallOptions) error {
	raw := opts.Args
	if raw == "-" {
		b, err := io.ReadAll(g.Streams.In)
		if err != nil {
			return fmt.Errorf("read arguments from stdin: %w", err)
		}
		raw = string(b)
	}
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	if !json.Valid([]byte(raw)) {
		return usageError{fmt.Errorf("arguments are not valid JSON: %s\nPass one JSON object, e.g. toolhost call read '{\"filePath\":\"go.mod\"}'", shorten(raw))}
	}
	if opts.Tool == "bash" {
		// The sandbox's one-shot helper starts its program (runtime
		// start, package init) while this process loads the config and
		// the registry; bash's command finds it waiting for its plan.
		// And its plan, kept by the last call, is read meanwhile (the
		// bash tool keeps plans in the cache directory's sandbox-plans),
		// and its ruleset built, by the helper or, where this process
		// forks the command itself, here.
		// Where no call kept one the sandbox may well be off: a helper
		// started and dropped in every call would cost more than the
		// first sandboxed call's wait.
		if plans := filepath.Join(runtime.DefaultCacheDir(os.Getenv), "sandbox-plans"); sandbox.PlansKept(plans) {
			sandbox.Prestart()
			sandbox.PreloadPlans(plans)
			// The sandbox policy looks the account's home up (os/user
			// keeps the answer): meanwhile too.
			go user.Current()
		}
	}
	var asker permission.Asker
	switch {
	case opts.Yes:
		asker = permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
			return permission.Reply{Kind: permission.Once}, nil
		})
	case g.Streams.TTY != nil:
		asker = &ttyAsker{tty: g.Streams.terminal(), c: palette{g.Streams.TTYColor}}
	default:
		asker = nobodyAsker
	}
	h, err := g.host(ctx, asker, true)
	if err != nil {
		return err
	}
	defer h.Close(context.WithoutCancel(ctx))
	if opts.Tool == "bash" && (h.Config == nil || !h.Config.Sandbox.On()) {
		sandbox.DropSpare()
	}
	for _, le := range h.LoadErrors {
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: skipped %s\n", le)
	}
	if opts.Agent != "" {
		if _, err := h.Registry.Agent(opts.Agent); err != nil {
			return usageError{err}
		}
	}
	if opts.Model == "" {
		opts.Model = h.Config.Model
	}
	if !h.Registry.Has(opts.Tool) {
		// The tools offered are the ones `toolhost tools` lists for the
		// same agent and model (Call.Listed below keeps the call to them).
		offered, err := h.Registry.Offered(runtime.Call{Agent: opts.Agent, Model: opts.Model, Listed: true})
		if err != nil {
			return usageError{err}
		}
		return usageError{fmt.Errorf("unknown tool %q; the tools offered (toolhost tools): %s", opts.Tool, strings.Join(offered, ", "))}
	}
	session := opts.Session
	if session == "" {
		session = DefaultSession(h.Worktree)
	}
	// Live output is streamed to a person watching stderr; elsewhere (a
	// pipe, a log) the final output carries it, and streaming it too would
	// double it in a combined log. Titles and other progress are shown
	// either way.
	progress := &progressPrinter{w: g.Streams.ErrOut, c: g.Streams.errColors(), noOutput: !g.Streams.ErrTerminal}
	res, err := h.Registry.Call(ctx, runtime.Call{
		Tool:       opts.Tool,
		Args:       json.RawMessage(raw),
		SessionID:  session,
		Agent:      opts.Agent,
		Model:      opts.Model,
		OnMetadata: progress.update,
		Listed:     true,
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(g.Streams.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	out := res.Output
	if g.Streams.OutTerminal && g.Streams.ErrTerminal && progress.shown != "" {
		if out = progress.unshown(out); out == "" {
			return nil
		}
	}
	if out == "" {
		return nil // a command that printed nothing, as at a shell
	}
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	_, err = io.WriteString(g.Streams.Out, out)
	return err
}

// DefaultSession is the session `toolhost call` uses without --session:
// one per project, named after a hash of its root directory, so calls made
// one by one from a shell share read stamps and approvals as an agent's
// calls do, and two projects never share them.
func DefaultSession(worktree string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(worktree)))
	return "cli_" + hex.EncodeToString(sum[:8])
}

// unshown returns what of the final output a person watching the same
// terminal has not seen live: the part after the live output when the
// final output extends it, or all of it when it differs (truncated, or
// rewritten); "" when all of it was shown and ended its line.
func (p *progressPrinter) unshown(out string) string {
	if p.shown == "" || !strings.HasPrefix(out, p.shown) {
		return out
	}
	rest := out[len(p.shown):]
	if rest == "" && !strings.HasSuffix(p.shown, "\n") {
		return "\n" // end the line the live output left open
	}
	return rest
}

func shorten(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// progressPrinter shows live metadata on stderr: the title when it changes,
// and new output as it grows (unless noOutput).
type progressPrinter struct {
	w         io.Writer
	c         palette
	noOutput  bool // the final output alone carries the tool's output
	lastTitle string
	// shown is the live output as far as it has been written to w.
	shown string
}

func (p *progressPrinter) update(title string, meta map[string]any) {
	if title != "" && title != p.lastTitle {
		fmt.Fprintf(p.w, "%s\n", p.c.dim("· "+title))
		p.lastTitle = title
	}
	if out, ok := meta["output"].(string); ok {
		if p.noOutput {
			return
		}
		if !strings.HasPrefix(out, p.shown) {
			// The output was replaced, not extended: show it afresh.
			p.shown = ""
		}
		if len(out) > len(p.shown) {
			io.WriteString(p.w, out[len(p.shown):])
			p.shown = out
		}
		return
	}
	if len(meta) > 0 {
		b, _ := json.Marshal(meta)
		fmt.Fprintf(p.w, "· %s\n", shorten(string(b)))
	}
}
