package builtins

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/internal/confine/shellperm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// bashToolName is the bash tool's id.
const bashToolName = "bash"

// PermissionBash is asked with one pattern per simple command.
const PermissionBash = shellperm.PermissionBash

const (
	// bashMetadataMaxChars caps the output carried in metadata (live and
	// final); the result's Output is whole and truncated by the wrapper.
	bashMetadataMaxChars = 30_000
	// bashKillGrace is how long the process group has between SIGTERM and
	// SIGKILL.
	bashKillGrace = 200 * time.Millisecond
	// bashMetadataInterval throttles live output updates.
	bashMetadataInterval = 100 * time.Millisecond
	// bashDrainGrace is how long the call waits, after the shell has
	// exited, for the output pipe to close; a background job that keeps it
	// open does not hold the call longer.
	bashDrainGrace = 100 * time.Millisecond
)

//go:embed bash.txt
var bashDescriptionTemplate string

// bashDescription renders bash.txt from the constants the code enforces, so
// the model is told the limits that really apply.
var bashDescription = sync.OnceValue(func() string {
	return renderDescription("bash", bashDescriptionTemplate, map[string]any{
		"DefaultTimeoutMS":      config.DefaultBashTimeoutMS,
		"DefaultTimeoutMinutes": config.DefaultBashTimeoutMS / 60_000,
		"KillGraceMS":           bashKillGrace.Milliseconds(),
		"MaxLines":              config.DefaultMaxLines,
		"MaxBytes":              config.DefaultMaxBytes,
	})
})

// bashParams are the bash tool's arguments.
type bashParams struct {
	Command     string `json:"command" jsonschema_description:"The command to execute"`
	Timeout     *int   `json:"timeout,omitempty" jsonschema_description:"Optional timeout in milliseconds"`
	Workdir     string `json:"workdir,omitempty" jsonschema_description:"The working directory to run the command in. Defaults to the project directory. Use this instead of 'cd' commands."`
	Description string `json:"description" jsonschema_description:"Clear, concise description of what this command does in 5-10 words. Examples:\nInput: ls\nOutput: Lists files in current directory\n\nInput: git status\nOutput: Shows working tree status\n\nInput: npm install\nOutput: Installs package dependencies\n\nInput: mkdir foo\nOutput: Creates directory 'foo'"`
}

// Bash returns the bash tool: it runs a command line in the user's shell
// after asking permission for every simple command in it (see
// bashPermissions), streams its merged output as live metadata, and stops
// the whole process group on timeout or cancellation.
//
// Result metadata: output (capped at 30 000 characters), exit (the exit
// code, -1 when a signal ended the shell), signal (its name, when one did),
// description, cwd.
func Bash() runtime.Tool {
	return runtime.Declare(runtime.DefineDynamic(bashToolName,
		func(context.Context, runtime.InitContext) (string, error) { return bashDescription(), nil },
		runBash), bashTraits)
}

// bashTraits: asks "bash" for each command itself; may change anything.
var bashTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{Destructive: true}}

func runBash(ctx context.Context, p bashParams, tc *runtime.Context) (runtime.Result, error) {
	if strings.TrimSpace(p.Command) == "" {
		return runtime.Result{}, errors.New("bash: command is empty; pass the command line to run")
	}
	timeout := time.Duration(config.DefaultBashTimeoutMS) * time.Millisecond
	if tc.Config != nil && tc.Config.Bash.TimeoutMS > 0 {
		timeout = time.Duration(tc.Config.Bash.TimeoutMS) * time.Millisecond
	}
	if p.Timeout != nil {
		if *p.Timeout < 0 {
			return runtime.Result{}, fmt.Errorf("invalid timeout value: %d; timeout must be a positive number of milliseconds", *p.Timeout)
		}
		if *p.Timeout > 0 {
			timeout = time.Duration(*p.Timeout) * time.Millisecond
		}
	}

	dir := tc.Directory
	if p.Workdir != "" || dir == "" {
		dir = tc.ResolvePath(p.Workdir)
	}
	reqs, err := shellperm.Requests(p.Command, dir, tc.Worktree, tc.Contains)
	if err != nil {
		return runtime.Result{}, err
	}
	bypass, _ := tc.Extra[runtime.ExtraBypassCwdCheck].(bool)
	for _, req := range reqs {
		if bypass && req.Permission == runtime.PermissionExternalDirectory {
			continue
		}
		if req.Metadata == nil {
			req.Metadata = map[string]any{}
		}
		req.Metadata["command"] = p.Command
		req.Metadata["description"] = p.Description
		if err := tc.Ask(ctx, req); err != nil {
			return runtime.Result{}, err
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return runtime.Result{}, fmt.Errorf("workdir %s is not an existing directory; pass an existing directory or omit workdir", dir)
	}

	title := p.Description
	if title == "" {
		title = p.Command
	}
	meta := func(out string) map[string]any {
		return map[string]any{"output": capChars(out, bashMetadataMaxChars), "description": p.Description}
	}
	tc.Metadata(title, meta(""))
	live := &throttle{every: bashMetadataInterval, emit: func(head string) { tc.Metadata(title, meta(head)) }}
	sb, err := bashSandbox(tc, externalDirsOf(reqs))
	if err != nil {
		return runtime.Result{}, err
	}
	run, err := runShell(ctx, shellCall{shell: bashShell(tc.Config), command: p.Command, dir: dir, timeout: timeout,
		progress: live.update, out: tc.OutputTruncation().NewSpool(), hint: tc.TruncationHint(), sandbox: sb})
	live.stop()
	if err != nil {
		return runtime.Result{}, err
	}
	if run.SaveErr != nil {
		tc.Logger.Warn("bash: full output not saved", "err", run.SaveErr)
	}

	var notes []string
	if run.TimedOut {
		notes = append(notes, fmt.Sprintf("bash tool terminated command after exceeding timeout %d ms", timeout.Milliseconds()))
	}
	if run.Aborted {
		notes = append(notes, "User aborted the command")
	}
	notes = append(notes, sandboxNotes(sb, run.Output, dir)...)
	output := run.Output
	if len(notes) > 0 {
		output += "\n\n<bash_metadata>\n" + strings.Join(notes, "\n") + "\n</bash_metadata>"
	}
	m := meta(output)
	m["exit"] = run.Exit
	m["cwd"] = dir
	m["truncated"] = run.Truncated // bash bounded its output itself; the wrapper leaves it
	if run.OutputPath != "" {
		m["outputPath"] = run.OutputPath
	}
	if run.Signal != "" {
		m["signal"] = run.Signal
	}
	tc.Metadata(title, m)
	return runtime.Result{Title: title, Output: output, Metadata: m}, nil
}

// externalDirsOf lists the resolved directories outside the project that
// the external_directory request of reqs named (and that were allowed, or
// the call would not have got this far).
func externalDirsOf(reqs []permission.Request) []string {
	for _, r := range reqs {
		if r.Permission == runtime.PermissionExternalDirectory {
			dirs, _ := r.Metadata["directories"].([]string)
			return dirs
		}
	}
	return nil
}

// bashShell picks the shell: the configured one, else $SHELL when it is
// bash, else bash from PATH, else sh.
func bashShell(cfg *config.Config) string {
	if cfg != nil && cfg.Bash.Shell != "" {
		return cfg.Bash.Shell
	}
	if s := os.Getenv("SHELL"); filepath.Base(s) == "bash" {
		if p, err := exec.LookPath(s); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "sh"
}

// shellRun is what a finished command left behind.
type shellRun struct {
	// Output is what the model sees: the whole output, or its head with
	// the wrapper's truncation marker and hint (see runtime.Spool).
	Output string
	// Truncated says Output is the head; OutputPath is then the saved
	// full output ("" when it could not be saved: SaveErr).
	Truncated  bool
	OutputPath string
	// SaveErr is why the full output could not be saved, if it could not.
	SaveErr  error
	Exit     int
	Signal   string
	TimedOut bool
	Aborted  bool
}

// shellCall is one command for runShell.
type shellCall struct {
	shell, command, dir string
	timeout             time.Duration
	// progress receives the first bashMetadataMaxChars of the output so
	// far after each read.
	progress func(head string)
	// out receives the whole output and bounds what stays in memory.
	out *runtime.Spool
	// hint picks the truncation hint.
	hint runtime.Hint
	// sandbox confines the command; nil runs it unconfined.
	sandbox *sandbox.Policy
}

// runShell runs command with `shell -c` in dir, in its own process group,
// under the sandbox policy when there is one, with standard input closed
// and standard output and error written to one pipe, so their order is the
// order the command wrote them. The output streams into c.out, which keeps
// a bounded head in memory and the rest in the saved-output file, so a
// command printing without end cannot grow the host's memory; only the
// live head (bashMetadataMaxChars) is kept besides. On timeout or ctx
// cancellation the process group gets SIGTERM, then SIGKILL after
// bashKillGrace; runShell returns only after that.
func runShell(ctx context.Context, c shellCall) (shellRun, error) {
	if err := ctx.Err(); err != nil {
		return shellRun{Output: "", Exit: -1, Aborted: true}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return shellRun{}, fmt.Errorf("bash: create output pipe: %w", err)
	}
	defer r.Close()
	var (
		pid  int
		wait func() (exit int, signal string, err error)
	)
	if c.sandbox != nil {
		proc, err := sandbox.Start(*c.sandbox, sandbox.Spawn{Shell: c.shell, Args: []string{"-c", c.command}, Dir: c.dir, Stdout: w, Stderr: w})
		w.Close() // the child holds its own copy; EOF comes when every holder closes
		if err != nil {
			return shellRun{}, fmt.Errorf("bash: %w", err)
		}
		pid, wait = proc.Pid, proc.Wait
	} else {
		cmd := exec.Command(c.shell, "-c", c.command)
		cmd.Dir = c.dir
		cmd.Stdout, cmd.Stderr = w, w
		startInOwnGroup(cmd)
		err = cmd.Start()
		w.Close()
		if err != nil {
			return shellRun{}, fmt.Errorf("bash: start %s: %w; set bash.shell in the config to a shell that exists", c.shell, err)
		}
		pid, wait = cmd.Process.Pid, func() (int, string, error) {
			_ = cmd.Wait()
			return cmd.ProcessState.ExitCode(), exitSignal(cmd.ProcessState), nil
		}
	}

	var (
		mu       sync.Mutex
		head     []byte // the first bashMetadataMaxChars+UTFMax bytes
		headFull string // head as a string, once it is full: made once
	)
	headMax := bashMetadataMaxChars + utf8.UTFMax
	current := func() string {
		mu.Lock()
		defer mu.Unlock()
		if headFull != "" {
			return headFull
		}
		return string(head)
	}
	// The reader only appends and nudges; progress runs on its own
	// goroutine so a slow consumer of live metadata never stalls the pipe.
	nudge := make(chan struct{}, 1)
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		for range nudge {
			c.progress(current())
		}
	}()
	appendOut := func(b []byte) {
		mu.Lock()
		c.out.Write(b) //nolint:errcheck // a Spool reports file errors in Result
		if room := headMax - len(head); room > 0 {
			head = append(head, b[:min(len(b), room)]...)
			if len(head) == headMax {
				headFull = string(head)
			}
		}
		mu.Unlock()
		select {
		case nudge <- struct{}{}:
		default:
		}
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32*1024)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				appendOut(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	var (
		exit    int
		signal  string
		waitErr error
	)
	waitDone := make(chan struct{})
	go func() {
		defer close(waitDone)
		exit, signal, waitErr = wait()
	}()

	var res shellRun
	timer := time.NewTimer(c.timeout)
	defer timer.Stop()
	select {
	case <-waitDone:
	case <-timer.C:
		res.TimedOut = true
		killGroup(pid, bashKillGrace)
		<-waitDone
	case <-ctx.Done():
		res.Aborted = true
		killGroup(pid, bashKillGrace)
		<-waitDone
	}
	// The shell has exited, so the pipe closes as soon as its last data is
	// read — unless a background job still holds it open. Give the reader
	// a moment, then stop it and take whatever is still buffered without
	// waiting for that job.
	select {
	case <-readDone:
	case <-time.After(bashDrainGrace):
		_ = r.SetReadDeadline(time.Now())
		<-readDone
		_ = r.SetReadDeadline(time.Time{})
		drainAvailable(r, appendOut)
	}
	close(nudge)
	<-progressDone

	mu.Lock()
	tr, err := c.out.Result(c.hint)
	mu.Unlock()
	res.Output, res.Truncated, res.OutputPath, res.SaveErr = tr.Content, tr.Truncated, tr.Path, err
	if waitErr != nil {
		return shellRun{}, fmt.Errorf("bash: %w", waitErr)
	}
	res.Exit, res.Signal = exit, signal
	return res, nil
}

// capChars cuts s to at most n bytes at a UTF-8 boundary, marking the cut.
func capChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "\n\n..."
}

// throttle passes the latest value on at most once per interval, and never
// drops the last one: an update inside the interval is delivered when the
// interval ends, so live output never stays stale (a server's "ready" line
// shows even when nothing follows it).
type throttle struct {
	every time.Duration
	emit  func(string)

	emitting sync.Mutex // held while emit runs, so stop can wait for it
	mu       sync.Mutex
	last     time.Time
	latest   string
	pending  *time.Timer
	stopped  bool
}

func (t *throttle) update(v string) {
	t.mu.Lock()
	t.latest = v
	if t.stopped || t.pending != nil {
		t.mu.Unlock()
		return
	}
	wait := t.every - time.Since(t.last)
	if wait > 0 {
		t.pending = time.AfterFunc(wait, t.flush)
		t.mu.Unlock()
		return
	}
	t.last = time.Now()
	t.mu.Unlock()
	t.deliver()
}

func (t *throttle) flush() {
	t.mu.Lock()
	t.pending = nil
	t.last = time.Now()
	t.mu.Unlock()
	t.deliver()
}

// deliver emits the latest value unless stopped meanwhile.
func (t *throttle) deliver() {
	t.emitting.Lock()
	defer t.emitting.Unlock()
	t.mu.Lock()
	v, stopped := t.latest, t.stopped
	t.mu.Unlock()
	if !stopped {
		t.emit(v)
	}
}

// stop cancels a pending delivery and waits for one in progress, so the
// caller's final value is the last one emitted.
func (t *throttle) stop() {
	t.mu.Lock()
	t.stopped = true
	if t.pending != nil {
		t.pending.Stop()
		t.pending = nil
	}
	t.mu.Unlock()
	t.emitting.Lock()
	t.emitting.Unlock() //nolint:staticcheck // an empty critical section: waiting is the point
}
