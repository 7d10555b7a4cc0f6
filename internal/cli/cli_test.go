package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// fakeTTY is a terminal whose person types input.
type fakeTTY struct {
	in  io.Reader
	out bytes.Buffer
}

func (f *fakeTTY) Read(p []byte) (int, error)  { return f.in.Read(p) }
func (f *fakeTTY) Write(p []byte) (int, error) { return f.out.Write(p) }

func TestTTYAskerShowsTheRequestAndMapsAnswersToReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typed string
		want  permission.Reply
	}{
		{"o\n", permission.Reply{Kind: permission.Once}},
		{"always\n", permission.Reply{Kind: permission.Always}},
		{"r\n", permission.Reply{Kind: permission.Reject}},
		{"\n", permission.Reply{Kind: permission.Reject}},
		{"use the staging branch instead\n", permission.Reply{Kind: permission.Reject, Message: "use the staging branch instead"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("typing %q", tc.typed), func(t *testing.T) {
			t.Parallel()
			tty := &fakeTTY{in: strings.NewReader(tc.typed)}
			got, err := (&ttyAsker{tty: newTerminal(tty)}).Ask(context.Background(), permission.Request{
				Tool: "edit", Permission: "edit", Patterns: []string{"main.go"}, Always: []string{"*"},
				Metadata: map[string]any{"diff": "--- a/main.go\n+++ b/main.go\n-old\n+new\n"},
			})
			if err != nil || got != tc.want {
				t.Fatalf("reply = %+v, %v; want %+v", got, err, tc.want)
			}
			shown := tty.out.String()
			for _, want := range []string{"permission: edit", "main.go", "+new", "[a]lways (*)"} {
				if !strings.Contains(shown, want) {
					t.Errorf("prompt lacks %q:\n%s", want, shown)
				}
			}
		})
	}
}

func TestTTYAskerGivesUpWhenTheCallIsCancelled(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := (&ttyAsker{tty: newTerminal(&fakeTTY{in: r})}).Ask(ctx, permission.Request{Permission: "bash"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestTTYQuestionerAcceptsNumbersOrFreeText(t *testing.T) {
	t.Parallel()
	tty := &fakeTTY{in: strings.NewReader("2\n1, 3\nsomething else\n")}
	got, err := (&ttyQuestioner{tty: newTerminal(tty)}).AskQuestions(context.Background(), []runtime.Question{
		{Question: "Which?", Options: []string{"a", "b", "c"}},
		{Question: "Which ones?", Options: []string{"a", "b", "c"}, Multiple: true},
		{Question: "Which?", Options: []string{"a", "b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"b"}, {"a", "c"}, {"something else"}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("answer %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestExitCodeMapsErrorKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("file not found"), ExitToolFailed},
		{usageError{errors.New("bad")}, ExitUsage},
		{fmt.Errorf("wrapped: %w", &permission.DeniedError{Permission: "bash"}), ExitPermission},
		{&permission.RejectedError{Permission: "edit"}, ExitPermission},
		{&permission.CorrectedError{Permission: "edit", Message: "no"}, ExitPermission},
		{&permission.UnansweredError{Permission: "bash", Pattern: "git push"}, ExitUnanswered},
		{fmt.Errorf("call bash: %w", &permission.UnansweredError{Permission: "bash", Pattern: "git push", Err: context.Canceled}), ExitUnanswered},
		{&ExitError{Code: 7, Err: errors.New("x")}, 7},
		{fmt.Errorf("call: %w", &runtime.UnavailableError{Tool: "probe", Agent: "build", Reason: "disabled"}), ExitPermission},
		{fmt.Errorf("call edit: %w", &runtime.ValidationError{Tool: "edit", Problems: []string{"/: missing properties 'filePath'"}}), ExitUsage},
	}
	for _, tc := range tests {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestCallFlagsParseIntoOptions(t *testing.T) {
	t.Parallel()
	var got *CallOptions
	g := &Globals{Streams: IOStreams{Out: io.Discard, ErrOut: io.Discard}}
	cmd := NewCmdCall(g, func(_ context.Context, _ *Globals, o *CallOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"bash", `{"command":"ls"}`, "--session", "s1", "--agent", "plan", "--yes", "--json", "--model", "gpt-5"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	want := CallOptions{Tool: "bash", Args: `{"command":"ls"}`, Session: "s1", Agent: "plan", Model: "gpt-5", Yes: true, JSON: true}
	if *got != want {
		t.Errorf("options = %+v, want %+v", *got, want)
	}
}

func TestProgressPrinterShowsTitlesAndOnlyNewOutput(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := &progressPrinter{w: &buf}
	p.update("Run tests", map[string]any{"output": "a\n"})
	p.update("Run tests", map[string]any{"output": "a\nb\n"})
	p.update("", map[string]any{"n": 1})
	if got, want := buf.String(), "· Run tests\na\nb\n· {\"n\":1}\n"; got != want {
		t.Errorf("progress = %q, want %q", got, want)
	}
}

// TestCallExitsUnansweredWhenNobodyAnswers: toolhost call whose permission
// question gets no answer fails with ExitUnanswered, not the exit status of
// a refusal, and says which rule would let the call through.
func TestCallExitsUnansweredWhenNobodyAnswers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := map[string]string{
		"HOME":                    home,
		"XDG_CONFIG_HOME":         home + "/config",
		"XDG_DATA_HOME":           home + "/data",
		"XDG_CACHE_HOME":          home + "/cache",
		"TOOLHOST_CONFIG_CONTENT": `{"permission": {"bash": {"*": "ask"}}}`,
	}
	var asked []permission.Request
	var errOut bytes.Buffer
	g := &Globals{
		Dir:     t.TempDir(),
		Streams: IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut},
		NewHost: func(ctx context.Context, opts host.Options) (*host.Host, error) {
			opts.Env = func(k string) string { return env[k] }
			opts.NoWasm = true
			opts.Asker = permission.AskerFunc(func(_ context.Context, req permission.Request) (permission.Reply, error) {
				asked = append(asked, req)
				return permission.Reply{}, &permission.UnansweredError{Why: "the test's asker has no one to ask"}
			})
			return host.New(ctx, opts)
		},
	}
	cmd := NewCmdCall(g, nil)
	cmd.SetArgs([]string{"bash", `{"command":"git push origin main","description":"Push"}`})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	if code := ExitCode(err); code != ExitUnanswered {
		t.Fatalf("exit %d (%v), want %d", code, err, ExitUnanswered)
	}
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asked))
	}
	if want := `"permission": {"bash": {"git push *": "allow"}}`; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Nobody rejected it") {
		t.Errorf("error %q does not say nobody rejected it and suggest %s", err, want)
	}
}

// A wasm or JS tool's ask may name any permission; the prompt says that
// "always" approves it for that tool only, naming its source and file.
func TestTTYAskerShowsWhomAGuestsAlwaysApprovesFor(t *testing.T) {
	t.Parallel()
	tty := &fakeTTY{in: strings.NewReader("a\n")}
	scope := permission.Scope{Tool: "jira", Source: "wasm", File: "/opt/tools/jira.wasm"}
	if _, err := (&ttyAsker{tty: newTerminal(tty)}).Ask(context.Background(), permission.Request{
		Tool: "jira", Permission: "bash", Patterns: []string{"*"}, Always: []string{"*"}, Scope: scope,
	}); err != nil {
		t.Fatal(err)
	}
	want := "jira (wasm, /opt/tools/jira.wasm) asks: bash `*` — always applies to jira only"
	if shown := tty.out.String(); !strings.Contains(shown, want) {
		t.Errorf("prompt lacks %q:\n%s", want, shown)
	}
}

// In a pipe the final output carries the tool's output, so the live
// printer shows titles and other progress but does not stream it too.
func TestProgressPrinterInAPipeLeavesTheOutputToTheResult(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := &progressPrinter{w: &buf, noOutput: true}
	p.update("Run tests", map[string]any{"output": "a\n"})
	p.update("", map[string]any{"progress": 1, "total": 3})
	if got, want := buf.String(), "· Run tests\n· {\"progress\":1,\"total\":3}\n"; got != want {
		t.Errorf("progress = %q, want %q", got, want)
	}
}
