package cli

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/agent"
	"github.com/toolhost/toolhost/internal/serve/inbox"
)

func TestRunFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want RunOptions
		code int
	}{
		{"the prompt is every argument joined", []string{"explain", "main.go"}, RunOptions{Prompt: "explain main.go"}, 0},
		{"every flag lands in its option", []string{"-m", "ollama/qwen3", "--agent", "plan", "--session", "ses_1", "--max-steps", "7", "--json", "--yes", "go"},
			RunOptions{Prompt: "go", Model: "ollama/qwen3", Agent: "plan", Session: "ses_1", MaxSteps: 7, JSON: true, Yes: true}, 0},
		{"--ask-fallback inbox with its flags", []string{"--json", "--ask-fallback", "inbox", "--inbox", "127.0.0.1:8766", "--inbox-timeout", "90s", "go"},
			RunOptions{Prompt: "go", JSON: true, AskFallback: "inbox", Inbox: InboxOptions{Addr: "127.0.0.1:8766", Timeout: 90 * time.Second}}, 0},
		{"--ask-fallback takes deny or inbox", []string{"--ask-fallback", "allow", "go"}, RunOptions{}, ExitUsage},
		{"--ask-fallback inbox and --yes contradict", []string{"--ask-fallback", "inbox", "--yes", "go"}, RunOptions{}, ExitUsage},
		{"an inbox beyond loopback needs a token", []string{"--ask-fallback", "inbox", "--inbox", "0.0.0.0:1", "--inbox-token", "", "go"}, RunOptions{}, ExitUsage},
		{"a prompt is required", nil, RunOptions{}, ExitUsage},
		{"an unknown flag is a usage error", []string{"--nope", "x"}, RunOptions{}, ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			g := &Globals{Streams: IOStreams{Out: &buf, ErrOut: &buf}}
			var got *RunOptions
			cmd := newCmdRun(g, func(_ context.Context, _ *Globals, o *RunOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
			err := Execute(context.Background(), cmd)
			if code := ExitCode(err); code != tt.code {
				t.Fatalf("exit code %d (%v), want %d", code, err, tt.code)
			}
			if tt.want.Inbox == (InboxOptions{}) {
				tt.want.Inbox = InboxOptions{Timeout: inbox.DefaultTimeout}
			}
			if tt.code == 0 && *got != tt.want {
				t.Errorf("options %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestTextEventsKeepTheAnswerOnStdoutAndToolsOnStderr(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	p := &textEvents{out: &out, errOut: &errOut}
	for _, e := range []agent.Event{
		{Type: agent.EventText, SessionID: "root", Text: "Let me "},
		{Type: agent.EventText, SessionID: "root", Text: "look."},
		{Type: agent.EventToolCall, SessionID: "root", Tool: "task", Input: []byte(`{"prompt":"x"}`)},
		{Type: agent.EventToolCall, SessionID: "child", Tool: "read", RepairedFrom: "Read"},
		{Type: agent.EventText, SessionID: "child", Text: "child text"},
		{Type: agent.EventToolError, SessionID: "child", Tool: "read", Error: "no such file\nmore"},
		{Type: agent.EventToolResult, SessionID: "root", Tool: "task", Title: "find", Time: &agent.Timing{Start: 10, End: 35}},
		{Type: agent.EventText, SessionID: "root", Text: "Found it."},
	} {
		p.event(e)
	}
	p.done(agent.Result{SessionID: "root", Steps: 2, Usage: agent.Usage{Total: 99}, Reason: agent.ReasonStop}, nil)
	if got, want := out.String(), "Let me look.\nFound it.\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	want := "→ task {\"prompt\":\"x\"}\n    → read (repaired from Read) \n    ✗ read: no such file\n✓ task: find (25ms)\n· 2 steps, 99 tokens; continue with --session root\n"
	if errOut.String() != want {
		t.Errorf("stderr\n%q\nwant\n%q", errOut.String(), want)
	}
}
