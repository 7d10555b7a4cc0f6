//go:build unix

package builtins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// bashProbe records what a bash call asked and reported.
type bashProbe struct {
	mu    sync.Mutex
	asks  []permission.Request
	metas []map[string]any
	deny  string // a permission to deny
}

func (p *bashProbe) ask(_ context.Context, req permission.Request) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asks = append(p.asks, req)
	if req.Permission == p.deny {
		return &permission.DeniedError{Permission: req.Permission, Pattern: req.Patterns[0]}
	}
	return nil
}

func (p *bashProbe) meta(_ string, m map[string]any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.metas = append(p.metas, m)
}

func (p *bashProbe) asked() []permission.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asks)
}

// bashProject makes a project directory inside a temporary root, so the
// root is a place outside the project that the test owns.
func bashProject(t *testing.T) (root, project string) {
	t.Helper()
	root = t.TempDir()
	project = filepath.Join(root, "project")
	if err := os.MkdirAll(filepath.Join(project, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, project
}

func runBashTool(t *testing.T, ctx context.Context, tc *runtime.Context, args bashParams) (runtime.Result, error) {
	t.Helper()
	def, err := Bash().Init(ctx, runtime.InitContext{Agent: &runtime.Agent{Name: "build"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return def.Execute(ctx, raw, tc)
}

// bashContext is a call's context outside a registry; saved outputs and
// toolhost's data directory lie beside the project, in the test's root.
func bashContext(project string, probe *bashProbe, cfg *config.Config) *runtime.Context {
	data := filepath.Join(filepath.Dir(project), "data")
	return runtime.NewContext(runtime.Context{
		Directory: project, Worktree: project, SessionID: "s", CallID: "c", Tool: bashToolName, Config: cfg,
		Truncation: &runtime.Truncation{Dir: filepath.Join(data, "tool-output")}, StateDirs: []string{data},
	}, probe.meta, probe.ask)
}

func TestBashExternalDirectoryRequests(t *testing.T) {
	t.Parallel()
	root, project := bashProject(t)
	if err := os.WriteFile(filepath.Join(project, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Clean(os.TempDir())
	tests := []struct {
		name     string
		command  string
		workdir  string
		external []string // patterns of the external_directory request, nil for none
		edit     []string // patterns of the edit request, nil for none
		bash     []string // patterns of the bash request, nil for none
	}{
		{"cd to the parent asks for the parent", "cd ../", "", []string{root + "/*"}, nil, nil},
		{"a workdir outside the project asks for it", "ls", tmp, []string{tmp + "/*"}, nil, []string{"ls"}},
		{"rm of a file inside the project asks nothing external", "rm file", "", nil, nil, []string{"rm file"}},
		{"rm of a file outside asks for its directory", "rm -f ../victim", "", []string{root + "/*"}, nil, []string{"rm -f ../victim"}},
		{"cat through a variable is unresolvable, whatever toolhost's environment holds", `cat "$UNSET_FOR_BASH_TEST"/x`, "", []string{`"$UNSET_FOR_BASH_TEST"/x`}, nil, []string{`cat "$UNSET_FOR_BASH_TEST"/x`}},
		{"cp into a directory outside asks for that directory", "cp file " + root, "", []string{root + "/*"}, nil, []string{"cp file " + root}},
		{"a relative workdir inside the project asks nothing external", "mkdir -p x", "sub", nil, nil, []string{"mkdir -p x"}},
		{"an output redirection outside asks for its directory and to edit the file", "echo hi > ../out", "", []string{root + "/*"}, []string{root + "/out"}, []string{"echo hi"}},
		{"an input redirection outside asks for its directory", "sort < ../in", "", []string{root + "/*"}, nil, []string{"sort"}},
		{"a redirection of a block is checked", "{ echo a; } >> ../log", "", []string{root + "/*"}, []string{root + "/log"}, []string{"echo a"}},
		{"a redirection inside a bash -c payload is checked", "bash -c 'echo x > ../y'", "", []string{root + "/*"}, []string{root + "/y"}, []string{"bash -c echo x > ../y", "echo x"}},
		{"redirections to devices ask nothing and a file inside is an edit", "ls 2>/dev/null >out.txt 2>&1", "", nil, []string{"out.txt"}, []string{"ls"}},
		{"a path in a subshell of a workdir outside is resolved against it", "(touch ../y)", "../", []string{root + "/*", filepath.Dir(root) + "/*"}, nil, []string{"touch ../y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			probe := &bashProbe{}
			_, err := runBashTool(t, context.Background(), bashContext(project, probe, nil), bashParams{Command: tt.command, Workdir: tt.workdir, Description: "test"})
			if err != nil {
				t.Fatalf("bash %q: %v", tt.command, err)
			}
			var want []string
			if tt.external != nil {
				want = append(want, runtime.PermissionExternalDirectory)
			}
			if tt.edit != nil {
				want = append(want, permissionEdit)
			}
			if tt.bash != nil {
				want = append(want, PermissionBash)
			}
			asks := probe.asked()
			var got []string
			for _, a := range asks {
				got = append(got, a.Permission)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("asked %q, want %q (external before bash)", got, want)
			}
			for _, a := range asks {
				switch a.Permission {
				case runtime.PermissionExternalDirectory:
					if !slices.Equal(a.Patterns, tt.external) {
						t.Errorf("external_directory patterns %q, want %q", a.Patterns, tt.external)
					}
				case permissionEdit:
					if !slices.Equal(a.Patterns, tt.edit) {
						t.Errorf("edit patterns %q, want %q", a.Patterns, tt.edit)
					}
				case PermissionBash:
					if !slices.Equal(a.Patterns, tt.bash) {
						t.Errorf("bash patterns %q, want %q", a.Patterns, tt.bash)
					}
				}
			}
		})
	}
}

func TestBashDeniedExternalDirectoryRunsNothing(t *testing.T) {
	t.Parallel()
	root, project := bashProject(t)
	victim := filepath.Join(root, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	probe := &bashProbe{deny: runtime.PermissionExternalDirectory}
	_, err := runBashTool(t, context.Background(), bashContext(project, probe, nil), bashParams{Command: "rm ../victim", Description: "remove"})
	var denied *permission.DeniedError
	if !errors.As(err, &denied) {
		t.Fatalf("error = %v, want the DeniedError returned unchanged", err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the command ran although permission was denied: %v", err)
	}
	if n := len(probe.asked()); n != 1 {
		t.Errorf("asked %d times, want only external_directory before stopping", n)
	}
}

func TestBashDeniedCommandRunsNothing(t *testing.T) {
	t.Parallel()
	_, project := bashProject(t)
	probe := &bashProbe{deny: PermissionBash}
	_, err := runBashTool(t, context.Background(), bashContext(project, probe, nil), bashParams{Command: "touch made", Description: "touch"})
	if permission.Kind(err) != "denied" {
		t.Fatalf("error = %v, want denied", err)
	}
	if _, err := os.Stat(filepath.Join(project, "made")); !os.IsNotExist(err) {
		t.Errorf("the command ran although permission was denied")
	}
}

func TestBashBypassSkipsTheExternalDirectoryRequest(t *testing.T) {
	t.Parallel()
	_, project := bashProject(t)
	probe := &bashProbe{}
	tc := bashContext(project, probe, nil)
	tc.Extra = map[string]any{runtime.ExtraBypassCwdCheck: true}
	if _, err := runBashTool(t, context.Background(), tc, bashParams{Command: "ls ..", Workdir: "..", Description: "list"}); err != nil {
		t.Fatal(err)
	}
	for _, a := range probe.asked() {
		if a.Permission == runtime.PermissionExternalDirectory {
			t.Errorf("asked external_directory although the bypass flag is set")
		}
	}
}

func TestBashOutput(t *testing.T) {
	t.Parallel()
	_, project := bashProject(t)
	var lines strings.Builder
	for i := 1; i <= 1999; i++ {
		fmt.Fprintf(&lines, "%d\n", i)
	}
	tests := []struct {
		name    string
		command string
		workdir string
		output  string
		exit    int
	}{
		{"1999 lines (2000 with the empty last one) come back whole", "seq 1 1999", "", lines.String(), 0},
		{"stdout and stderr interleave in write order", "for i in 1 2 3; do echo out$i; echo err$i >&2; done", "", "out1\nerr1\nout2\nerr2\nout3\nerr3\n", 0},
		{"a non-zero exit is a normal result with its code", "echo failing; exit 3", "", "failing\n", 3},
		{"a relative workdir is resolved against the project", "pwd", "sub", filepath.Join(project, "sub") + "\n", 0},
		{"standard input is closed", "cat; echo done", "", "done\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			probe := &bashProbe{}
			res, err := runBashTool(t, context.Background(), bashContext(project, probe, nil), bashParams{Command: tt.command, Workdir: tt.workdir, Description: "testing output"})
			if err != nil {
				t.Fatalf("bash %q: %v", tt.command, err)
			}
			if res.Output != tt.output {
				t.Errorf("output = %q, want %q", abbreviate(res.Output), abbreviate(tt.output))
			}
			if res.Metadata["exit"] != tt.exit {
				t.Errorf("exit = %v, want %d", res.Metadata["exit"], tt.exit)
			}
			if res.Title != "testing output" || res.Metadata["description"] != "testing output" {
				t.Errorf("title %q / description %v, want the description", res.Title, res.Metadata["description"])
			}
			if res.Metadata["output"] != tt.output {
				t.Errorf("metadata output differs from output under the cap")
			}
		})
	}
}

func abbreviate(s string) string {
	if len(s) > 200 {
		return s[:100] + "…" + s[len(s)-100:]
	}
	return s
}

func TestBashMetadataOutputIsCapped(t *testing.T) {
	t.Parallel()
	_, project := bashProject(t)
	probe := &bashProbe{}
	res, err := runBashTool(t, context.Background(), bashContext(project, probe, nil), bashParams{Command: "head -c 40000 /dev/zero | tr '\\0' x", Description: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Output) != 40000 {
		t.Errorf("output has %d bytes, want all 40000", len(res.Output))
	}
	probe.mu.Lock()
	defer probe.mu.Unlock()
	if len(probe.metas) < 2 {
		t.Fatalf("got %d metadata updates, want an initial and a final one at least", len(probe.metas))
	}
	for i, m := range probe.metas {
		out, _ := m["output"].(string)
		if len(out) > bashMetadataMaxChars+len("\n\n...") {
			t.Errorf("metadata update %d carries %d bytes, over the cap", i, len(out))
		}
		if m["description"] != "big" {
			t.Errorf("metadata update %d lacks the description", i)
		}
	}
	last, _ := probe.metas[len(probe.metas)-1]["output"].(string)
	if !strings.HasSuffix(last, "\n\n...") || !strings.HasPrefix(last, strings.Repeat("x", bashMetadataMaxChars)) {
		t.Errorf("final metadata output should be the first %d characters and a marker", bashMetadataMaxChars)
	}
}

// processGone reports whether pid no longer runs (absent, or a zombie
// waiting for a parent to reap it).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// waitGone polls until pid is gone; the kill signal has been sent when the
// tool returns, but the kernel finishes the process asynchronously.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 500 {
		if processGone(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d still runs after the tool returned", pid)
}

func childPID(t *testing.T, output string) int {
	t.Helper()
	first, _, _ := strings.Cut(output, "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		t.Fatalf("output %q does not start with the child's pid", output)
	}
	return pid
}

func TestBashTimeoutKillsTheProcessTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		command string
	}{
		{"a child that dies on SIGTERM", "sleep 60 & echo $!; wait"},
		{"a child that ignores SIGTERM gets SIGKILL", "trap '' TERM; sleep 60 & echo $!; wait"},
		{"a grandchild in a pipeline", "bash -c 'sleep 60 & echo $!; wait' | cat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, project := bashProject(t)
			// Long enough for the shells to start and print under a loaded, race-instrumented run.
			timeout := 2000
			res, err := runBashTool(t, context.Background(), bashContext(project, &bashProbe{}, nil), bashParams{Command: tt.command, Timeout: &timeout, Description: "sleep"})
			if err != nil {
				t.Fatal(err)
			}
			pid := childPID(t, res.Output)
			waitGone(t, pid)
			if !strings.HasSuffix(res.Output, "<bash_metadata>\nbash tool terminated command after exceeding timeout 2000 ms\n</bash_metadata>") {
				t.Errorf("output %q lacks the timeout note", res.Output)
			}
			if strings.Contains(res.Output, "User aborted") {
				t.Errorf("a timeout was reported as an abort")
			}
			if res.Metadata["exit"] == 0 {
				t.Errorf("exit = 0 for a killed command")
			}
		})
	}
}

func TestBashUsesTheConfiguredDefaultTimeout(t *testing.T) {
	t.Parallel()
	_, project := bashProject(t)
	cfg := &config.Config{Bash: config.Bash{TimeoutMS: 250}}
	res, err := runBashTool(t, context.Background(), bashContext(project, &bashProbe{}, cfg), bashParams{Command: "sleep 60", Description: "sleep"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "exceeding timeout 250 ms") {
		t.Errorf("output %q does not report the configured 250 ms timeout", res.Output)
	}
}

func TestBashCancellationStopsTheCommand(t *testing.T) {
	t.Parallel()
	_, project := bashProject(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	probe := &bashProbe{}
	tc := runtime.NewContext(runtime.Context{Directory: project, Worktree: project, SessionID: "s"},
		func(title string, m map[string]any) {
			probe.meta(title, m)
			if out, _ := m["output"].(string); strings.Contains(out, "ready") {
				cancel()
			}
		}, probe.ask)
	res, err := runBashTool(t, ctx, tc, bashParams{Command: "sleep 60 & echo $!; echo ready; wait", Description: "wait"})
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, childPID(t, res.Output))
	if !strings.HasSuffix(res.Output, "<bash_metadata>\nUser aborted the command\n</bash_metadata>") {
		t.Errorf("output %q lacks the abort note", res.Output)
	}
}

func TestBashAlreadyCancelledRunsNothing(t *testing.T) {
	t.Parallel()
	_, project := bashProject(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := runBashTool(t, ctx, bashContext(project, &bashProbe{}, nil), bashParams{Command: "touch made", Description: "touch"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(project, "made")); !os.IsNotExist(err) {
		t.Errorf("a cancelled call ran its command")
	}
	if !strings.Contains(res.Output, "User aborted the command") {
		t.Errorf("output %q lacks the abort note", res.Output)
	}
}

func TestBashDoesNotWaitForABackgroundJobHoldingTheOutput(t *testing.T) {
	t.Parallel()
	_, project := bashProject(t)
	// If the tool waited for the pipe to close it would wait for sleep and
	// this context would abort it; the abort note would then show.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := runBashTool(t, ctx, bashContext(project, &bashProbe{}, nil), bashParams{Command: "sleep 120 & echo $!", Description: "background"})
	if err != nil {
		t.Fatal(err)
	}
	pid := childPID(t, res.Output)
	defer syscall.Kill(pid, syscall.SIGKILL)
	if strings.Contains(res.Output, "aborted") || res.Metadata["exit"] != 0 {
		t.Errorf("the call waited for the background job: %q", res.Output)
	}
}

func TestBashRejectsANegativeTimeoutAndAMissingWorkdir(t *testing.T) {
	t.Parallel()
	_, project := bashProject(t)
	neg := -1
	for _, p := range []bashParams{
		{Command: "true", Timeout: &neg, Description: "x"},
		{Command: "true", Workdir: "does-not-exist", Description: "x"},
		{Command: "  ", Description: "x"},
	} {
		if _, err := runBashTool(t, context.Background(), bashContext(project, &bashProbe{}, nil), p); err == nil {
			t.Errorf("bash %+v: no error", p)
		}
	}
}

func TestBashDescriptionIsRenderedFromTheLimits(t *testing.T) {
	t.Parallel()
	d := bashDescription()
	for _, want := range []string{
		strconv.Itoa(config.DefaultBashTimeoutMS) + " ms",
		strconv.Itoa(config.DefaultMaxLines) + " lines",
		strconv.Itoa(config.DefaultMaxBytes) + " bytes",
		"200 ms later, SIGKILL",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %q", want)
		}
	}
	if strings.Contains(d, "{{") {
		t.Errorf("description has an unrendered template action")
	}
}

func TestBashShellChoice(t *testing.T) {
	t.Parallel()
	if got := bashShell(&config.Config{Bash: config.Bash{Shell: "/bin/zsh"}}); got != "/bin/zsh" {
		t.Errorf("configured shell ignored: %q", got)
	}
	if got := filepath.Base(bashShell(nil)); got != "bash" && got != "sh" {
		t.Errorf("default shell %q, want bash or sh", got)
	}
}

func TestThrottleDeliversTheLatestValueAndNothingAfterStop(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	th := &throttle{every: time.Millisecond, emit: func(v string) { mu.Lock(); got = append(got, v); mu.Unlock() }}
	th.update("a")
	th.update("b")
	th.update("c")
	for range 1000 {
		mu.Lock()
		done := len(got) > 0 && got[len(got)-1] == "c"
		mu.Unlock()
		if done {
			break
		}
		time.Sleep(time.Millisecond)
	}
	th.stop()
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[0] != "a" || got[len(got)-1] != "c" {
		t.Errorf("emitted %q, want the first value at once and the latest one last", got)
	}

	var late []string
	slow := &throttle{every: time.Hour, emit: func(v string) { late = append(late, v) }}
	slow.update("first")
	slow.update("pending")
	slow.stop()
	slow.update("after stop")
	if !slices.Equal(late, []string{"first"}) {
		t.Errorf("emitted %q after stop, want only the first value", late)
	}
}

func TestDrainAvailableTakesBufferedOutputWithoutWaiting(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // held open, as by a background job
	if _, err := w.Write([]byte("left in the pipe")); err != nil {
		t.Fatal(err)
	}
	var got []byte
	drainAvailable(r, func(b []byte) { got = append(got, b...) })
	if string(got) != "left in the pipe" {
		t.Errorf("drained %q", got)
	}
}
