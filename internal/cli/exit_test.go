package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// testGlobals are the globals of a CLI with no terminal in a fresh
// project whose config is content; errOut collects stderr.
func testGlobals(t *testing.T, content string) (*Globals, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{
		"HOME":                    home,
		"XDG_CONFIG_HOME":         home + "/config",
		"XDG_DATA_HOME":           home + "/data",
		"XDG_CACHE_HOME":          home + "/cache",
		"XDG_STATE_HOME":          home + "/state",
		"TOOLHOST_CONFIG_CONTENT": content,
	}
	var out, errOut bytes.Buffer
	g := &Globals{
		Dir:     t.TempDir(),
		Streams: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		NewHost: func(ctx context.Context, opts host.Options) (*host.Host, error) {
			opts.Env = func(k string) string { return env[k] }
			opts.NoWasm = true
			return host.New(ctx, opts)
		},
	}
	return g, &out, &errOut
}

// TestErrorsCobraReportsBeforeACommandRunsAreUsageErrors: an unknown
// command, a wrong argument count, a missing required flag and flags that
// exclude each other exit 2, recognised by where they come from, not by
// their wording.
func TestErrorsCobraReportsBeforeACommandRunsAreUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
	}{
		{"an unknown command", []string{"nosuch"}},
		{"an unknown flag", []string{"tools", "--nosuch"}},
		{"too many arguments", []string{"call", "read", "{}", "extra"}},
		{"no arguments where one is required", []string{"call"}},
		{"a missing required flag", []string{"plugin", "keygen"}},
		{"flags that exclude each other", []string{"trust", "--status", "--revoke"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := &Globals{Streams: IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}}
			root := NewRootCmd(g)
			root.SetArgs(tt.args)
			err := Execute(context.Background(), root)
			if code := ExitCode(err); code != ExitUsage {
				t.Errorf("toolhost %s: exit %d (%v), want %d", strings.Join(tt.args, " "), code, err, ExitUsage)
			}
		})
	}
}

// TestAnErrorACommandReturnsKeepsItsKind: errors from a command's own code
// pass through Execute with their kind, not as usage errors.
func TestAnErrorACommandReturnsKeepsItsKind(t *testing.T) {
	t.Parallel()
	g := &Globals{Streams: IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}}
	g.NewHost = func(context.Context, host.Options) (*host.Host, error) {
		return nil, fmt.Errorf("load: %w", &permission.DeniedError{Permission: "read", Pattern: "x"})
	}
	root := NewRootCmd(g)
	root.SetArgs([]string{"tools"})
	if code := ExitCode(Execute(context.Background(), root)); code != ExitPermission {
		t.Errorf("exit %d, want %d", code, ExitPermission)
	}
}

// TestRefusalsAreWordedForAPersonAtTheCLI: the texts the model reads ("do
// not call it again", "tell the user") are reworded for the person at the
// CLI, keeping the context around them, and nothing is said twice.
func TestRefusalsAreWordedForAPersonAtTheCLI(t *testing.T) {
	t.Parallel()
	rule := permission.Rule{Permission: "bash", Pattern: "rm *", Action: permission.Deny, Source: "toolhost.json:3"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a denial names the rule", fmt.Errorf("call bash: %w", &permission.DeniedError{Permission: "bash", Pattern: "rm x", Rules: permission.Ruleset{rule}}),
			`call bash: permission bash for "rm x" is denied by the rule bash "rm *": deny (toolhost.json:3)`},
		{"an unanswered question says how to allow it", permission.Unanswered(permission.Request{Permission: "bash", Patterns: []string{"touch x"}, Always: []string{"touch *"}}, "there is no terminal to ask at", "pass --yes, or add %s to toolhost.json", nil),
			`permission bash for "touch x" needs your approval, and nobody answered (there is no terminal to ask at); nothing was run. To allow it, pass --yes, or add "permission": {"bash": {"touch *": "allow"}} to toolhost.json`},
		{"a tool not offered names the key that enables it", &runtime.UnavailableError{Tool: "webfetch", Agent: "build", Reason: `the config disables it with "tools": {"webfetch": false}`, Remedy: `"tools": {"webfetch": true}`},
			`tool "webfetch" is not offered to the build agent: the config disables it with "tools": {"webfetch": false}; enable it with "tools": {"webfetch": true}`},
		{"a rejection", &permission.RejectedError{Permission: "edit"}, "permission edit was rejected, so nothing was run"},
		{"invalid arguments", &runtime.ValidationError{Tool: "edit", Problems: []string{"/: missing properties 'filePath'"}},
			"invalid arguments for edit: /: missing properties 'filePath' (its schema: toolhost tools --json)"},
		{"any other error as it is", errors.New("open x: no such file"), "open x: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := personMessage(tt.err)
			if got != tt.want {
				t.Errorf("personMessage =\n%s\nwant\n%s", got, tt.want)
			}
			for _, modelTalk := range []string{"do not call it again", "do not retry", "Tell the user", "Please rewrite"} {
				if strings.Contains(got, modelTalk) {
					t.Errorf("%q speaks to a model: %q", got, modelTalk)
				}
			}
		})
	}
}

// TestACallNobodyCanAnswerExits4: without a terminal or --yes, a call a
// rule asks about is not run, exits ExitUnanswered (as README.md
// documents) and tells the person how to allow it.
func TestACallNobodyCanAnswerExits4(t *testing.T) {
	t.Parallel()
	g, _, _ := testGlobals(t, `{"permission": {"bash": {"*": "ask"}}}`)
	marker := g.Dir + "/ran"
	err := runCall(context.Background(), g, &CallOptions{Tool: "bash", Args: `{"command":"touch ran","description":"d"}`})
	if code := ExitCode(err); code != ExitUnanswered {
		t.Fatalf("exit %d (%v), want %d", code, err, ExitUnanswered)
	}
	if _, statErr := os.Stat(marker); statErr == nil {
		t.Error("the command ran though nobody answered")
	}
	msg := personMessage(err)
	for _, want := range []string{"--yes", `"permission": {"bash": {"touch *": "allow"}}`, "nobody answered"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// TestCallOffersTheToolsToolsLists: the tools `toolhost call` names as
// offered are the ones `toolhost tools` lists, and a tool it does not list
// (apply_patch for no model, question without a terminal, the fallback
// invalid) is refused, not run.
func TestCallOffersTheToolsToolsLists(t *testing.T) {
	t.Parallel()
	g, out, _ := testGlobals(t, `{}`)
	if err := runTools(context.Background(), g, &ToolsOptions{}); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
		listed = append(listed, strings.Fields(line)[0])
	}
	err := runCall(context.Background(), g, &CallOptions{Tool: "nosuch"})
	if ExitCode(err) != ExitUsage || !strings.HasSuffix(err.Error(), ": "+strings.Join(listed, ", ")) {
		t.Errorf("call nosuch = %v, want a usage error offering what tools lists: %s", err, strings.Join(listed, ", "))
	}
	for _, id := range []string{"apply_patch", "question", "invalid", "batch"} {
		if strings.Contains(" "+strings.Join(listed, " ")+" ", " "+id+" ") {
			t.Fatalf("tools lists %s; the test needs a tool it does not list", id)
		}
		err := runCall(context.Background(), g, &CallOptions{Tool: id, Args: `{}`})
		var u *runtime.UnavailableError
		if !errors.As(err, &u) || ExitCode(err) != ExitPermission {
			t.Errorf("call %s = %v (exit %d), want it refused as not offered (exit %d)", id, err, ExitCode(err), ExitPermission)
		}
	}
}

// TestATruncatedCallSuggestsTheTaskToolWhenASubagentCanRun: as in
// OpenCode, the truncation hint of `toolhost call` suggests the task tool
// when a model is configured (so a subagent can run) and task is allowed,
// and Grep and Read otherwise.
func TestATruncatedCallSuggestsTheTaskToolWhenASubagentCanRun(t *testing.T) {
	t.Parallel()
	const task, grep = "Use the Task tool to have the explore agent process this file", "Use Grep to search the full content"
	tests := []struct {
		name, config, want string
	}{
		{"a configured model", `{"model": "ollama/qwen3", "tool_output": {"max_lines": 5}}`, task},
		{"no model", `{"tool_output": {"max_lines": 5}}`, grep},
		{"a model, but task denied", `{"model": "ollama/qwen3", "tool_output": {"max_lines": 5}, "permission": {"task": "deny"}}`, grep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, out, _ := testGlobals(t, tt.config)
			if err := os.WriteFile(g.Dir+"/many.txt", []byte(strings.Repeat("line\n", 50)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := runCall(context.Background(), g, &CallOptions{Tool: "bash", Args: `{"command":"cat many.txt","description":"d"}`, Yes: true}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("the truncated output lacks %q:\n%s", tt.want, out.String())
			}
		})
	}
}

// TestALoadProblemIsReportedOnce: a module that cannot be loaded is named
// once on stderr, readably — not also in a log line with its newlines
// escaped.
func TestALoadProblemIsReportedOnce(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "XDG_CACHE_HOME": home + "/cache"}
	if err := os.MkdirAll(home+"/config/toolhost/tool", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(home+"/config/toolhost/tool/broken.wasm", []byte("not a module"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	g := &Globals{Dir: t.TempDir(), LogLevel: "warn", Streams: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		NewHost: func(ctx context.Context, opts host.Options) (*host.Host, error) {
			opts.Env = func(k string) string { return env[k] }
			return host.New(ctx, opts)
		}}
	if err := runTools(context.Background(), g, &ToolsOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(errOut.String(), "broken.wasm"); n != 1 {
		t.Errorf("stderr names broken.wasm %d times, want once:\n%s", n, errOut.String())
	}
	if !strings.Contains(errOut.String(), "toolhost: skipped ") {
		t.Errorf("stderr does not say the module was skipped:\n%s", errOut.String())
	}
}
