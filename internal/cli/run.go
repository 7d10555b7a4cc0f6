package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/agent"
	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// RunOptions are the arguments and flags of `toolhost run`.
type RunOptions struct {
	Prompt   string // "-" reads it from stdin
	Model    string
	Agent    string
	Session  string
	MaxSteps int
	JSON     bool
	Yes      bool
	// AskFallback is what "ask" becomes when no terminal can show the
	// question: deny (default) or inbox.
	AskFallback string
	Inbox       InboxOptions
}

// NewCmdRun runs the agent loop on one prompt.
func NewCmdRun(g *Globals) *cobra.Command { return newCmdRun(g, nil) }

// newCmdRun is NewCmdRun with the behaviour replaceable, for tests of flag
// parsing; nil runF means runRun.
func newCmdRun(g *Globals, runF func(context.Context, *Globals, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT...",
		Short: "Run an agent on a prompt with any OpenAI-compatible model",
		Long: `Run an agent on a prompt: the model gets the agent's tools, calls them
(several at once when it likes), sees the results, and goes on until it
answers without calling a tool or --max-steps is reached. Every call goes
through the same validation, permission, truncation and hook path as
toolhost call.

The model is --model, else the agent's model, else "model" in the config.
"name/model" picks the provider "name" from the config (base_url, api_key
or api_key_env, strict); anything else goes to OPENAI_BASE_URL with
OPENAI_API_KEY. See docs/agent.md for Ollama, vLLM and OpenAI setups.

The answer streams to stdout; tool calls and their results go to stderr.
With --json, stdout carries one JSON event per line instead: text,
tool-call (state running), tool-update, tool-result, tool-error,
permission-asked, step-finish, finish, error.

When a rule says "ask", a person at a terminal is asked; with --json, or
without a terminal, requests are refused with a message saying how to allow
them, unless --yes answers them all with once, or --ask-fallback inbox
parks them in the permission inbox, a web page (--inbox, its URL printed on
stderr) where a person answers while the call waits (docs/inbox.md).

The conversation is saved; --session ID continues it (the id is printed at
the end, and is in every JSON event).

Exit status: 0 the agent finished, 1 it failed (the model endpoint, a
broken connection), 2 usage error, 3 a person rejected a permission request.`,
		Example: `  toolhost run --model ollama/qwen3 "what does main.go do?"
  OPENAI_API_KEY=sk-... toolhost run --model gpt-4.1 --agent plan "plan a fix for the flaky test"
  toolhost run --session ses_0189ab... "now write the fix"
  echo "list the TODOs" | toolhost run --json --yes -
  toolhost run --json --ask-fallback inbox "tidy the imports"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Prompt = strings.Join(args, " ")
			switch opts.AskFallback {
			case "", config.AskFallbackDeny:
			case config.AskFallbackInbox:
				if opts.Yes {
					return usageError{fmt.Errorf("--yes answers every question, so there is none for --ask-fallback inbox; give one of them")}
				}
				if err := opts.Inbox.check(); err != nil {
					return usageError{err}
				}
			default:
				return usageError{fmt.Errorf("--ask-fallback %q: use deny or inbox (--yes allows every question)", opts.AskFallback)}
			}
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runRun(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Model, "model", "m", "", "model `id`, e.g. gpt-4.1 or ollama/qwen3 (default: the agent's, else the config's)")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "agent `name` (default: the configured default agent, else build)")
	cmd.Flags().StringVarP(&opts.Session, "session", "s", "", "continue the session with this `id`")
	cmd.Flags().IntVar(&opts.MaxSteps, "max-steps", 0, "stop after `n` model calls (default: the agent's max_steps, else no limit)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON event per line on stdout")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "answer every permission question with once (rules that deny still deny)")
	cmd.Flags().StringVar(&opts.AskFallback, "ask-fallback", "", "what \"ask\" becomes when no terminal can show it: deny or inbox (`mode`; default deny)")
	addInboxFlags(cmd.Flags(), &opts.Inbox)
	return cmd
}

func runRun(ctx context.Context, g *Globals, opts *RunOptions) error {
	prompt := opts.Prompt
	if prompt == "-" {
		b, err := io.ReadAll(g.Streams.In)
		if err != nil {
			return fmt.Errorf("read prompt from stdin: %w", err)
		}
		prompt = string(b)
	}
	if strings.TrimSpace(prompt) == "" {
		return usageError{fmt.Errorf("empty prompt; say what the agent should do, e.g. toolhost run \"explain main.go\"")}
	}
	if opts.MaxSteps < 0 {
		return usageError{fmt.Errorf("--max-steps %d: must be 0 (no limit) or more", opts.MaxSteps)}
	}

	var out eventPrinter
	if opts.JSON {
		out = &jsonEvents{enc: json.NewEncoder(g.Streams.Out)}
	} else {
		out = &textEvents{out: g.Streams.Out, errOut: g.Streams.ErrOut}
	}
	var asker permission.Asker
	var ib *inbox.Inbox
	switch {
	case opts.Yes:
		asker = permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
			return permission.Reply{Kind: permission.Once}, nil
		})
	case g.Streams.TTY != nil && !opts.JSON:
		asker = &ttyAsker{tty: g.Streams.terminal(), c: palette{g.Streams.TTYColor}}
	case opts.AskFallback == config.AskFallbackInbox:
		started, stop, err := startInbox(ctx, g, opts.Inbox, opts.Agent)
		if err != nil {
			return err
		}
		defer stop()
		ib, asker = started, started
	}
	// The host watches the tool folders: a module added or removed during
	// a long run takes effect in the registry at once.
	h, err := g.host(ctx, agent.NotifyAsker(asker, out.event), !opts.JSON, watching)
	if err != nil {
		return err
	}
	defer closeHost(ctx, g.logger(), h)
	if ib != nil {
		ib.Attach(h.Registry)
		ib.SetTrust(h.TrustReviewer(), h.TrustStatus().Trusted)
		if !h.Config.Server.NotifyInbox() {
			ib.SetNotifier(nil)
		}
	}
	for _, le := range h.LoadErrors {
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: skipped %s\n", le)
	}
	for _, gp := range h.GrantProblems {
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: grant withheld from %s\n", gp)
	}
	if _, err := h.Registry.Agent(opts.Agent); err != nil {
		return usageError{err}
	}
	if model := cmp.Or(opts.Model, h.Config.Model); model != "" {
		// A model whose provider is unknown is a mistake in the command
		// line or config, found before anything runs.
		if _, err := agent.ResolveEndpoint(h.Config, model, os.Getenv); err != nil {
			return usageError{err}
		}
	}
	dir := g.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, _ = filepath.Abs(dir)
	runner := agent.New(agent.Options{Registry: h.Registry, Store: h.Store, Logger: g.logger(), Directory: dir, Worktree: h.Worktree})
	res, err := runner.Run(ctx, agent.Request{
		Prompt:    prompt,
		SessionID: opts.Session,
		Agent:     opts.Agent,
		Model:     opts.Model,
		MaxSteps:  opts.MaxSteps,
		Events:    out.event,
	})
	out.done(res, err)
	if err != nil {
		return err
	}
	if res.Reason == agent.ReasonRejected {
		return &ExitError{Code: ExitPermission, Err: fmt.Errorf("stopped: a permission request was rejected; continue with --session %s and new instructions", res.SessionID)}
	}
	return nil
}

// eventPrinter shows a run's events.
type eventPrinter interface {
	event(agent.Event)
	// done ends the run's output; err is the run's failure, if any.
	done(res agent.Result, err error)
}

// jsonEvents prints one event per line. Events come from concurrent tool
// calls, so writes are serialised.
type jsonEvents struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (j *jsonEvents) event(e agent.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.enc.Encode(e)
}

func (j *jsonEvents) done(agent.Result, error) {}

// textEvents streams the answer of the top-level session to out and
// reports tool calls (a subagent's indented) on errOut.
type textEvents struct {
	mu       sync.Mutex
	out      io.Writer
	errOut   io.Writer
	root     string // the top-level session: the first to speak
	midLine  bool   // out's last write did not end a line
	progress map[string]string
}

func (p *textEvents) event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.root == "" {
		p.root = e.SessionID
	}
	indent := ""
	if e.SessionID != p.root {
		indent = "    "
	}
	switch e.Type {
	case agent.EventText:
		if indent != "" {
			return // a subagent's answer reaches its caller as the task result
		}
		io.WriteString(p.out, e.Text)
		p.midLine = !strings.HasSuffix(e.Text, "\n")
		return
	case agent.EventToolCall:
		p.endLine()
		name := e.Tool
		if e.RepairedFrom != "" {
			name += " (repaired from " + e.RepairedFrom + ")"
		}
		fmt.Fprintf(p.errOut, "%s→ %s %s\n", indent, name, shorten(string(e.Input)))
	case agent.EventToolUpdate:
		if e.Title != "" && p.progress[e.CallID] != e.Title {
			if p.progress == nil {
				p.progress = map[string]string{}
			}
			p.progress[e.CallID] = e.Title
			fmt.Fprintf(p.errOut, "%s  · %s\n", indent, e.Title)
		}
	case agent.EventToolResult:
		title := e.Title
		if title == "" {
			title = firstLine(e.Output, 80)
		}
		fmt.Fprintf(p.errOut, "%s✓ %s: %s (%dms)\n", indent, e.Tool, title, e.Time.End-e.Time.Start)
	case agent.EventToolError:
		fmt.Fprintf(p.errOut, "%s✗ %s: %s\n", indent, e.Tool, firstLine(e.Error, 200))
	case agent.EventPermissionAsked:
		p.endLine()
	}
}

// endLine ends a partly written answer line before stderr output, so a
// terminal showing both does not run them together.
func (p *textEvents) endLine() {
	if p.midLine {
		io.WriteString(p.out, "\n")
		p.midLine = false
	}
}

func (p *textEvents) done(res agent.Result, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
	if res.SessionID == "" || err != nil {
		// A failed run is not offered for continuing: the error says what
		// to fix, and starting again is the way on.
		return
	}
	note := ""
	switch res.Reason {
	case agent.ReasonMaxSteps:
		note = "step limit reached; "
	case agent.ReasonLength:
		note = "the model ran out of output tokens; "
	}
	fmt.Fprintf(p.errOut, "· %s%d steps, %d tokens; continue with --session %s\n", note, res.Steps, res.Usage.Total, res.SessionID)
}
