//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
)

// Start runs s confined by p. On linux/amd64 this process forks the
// command, which confines itself before it executes (forked_linux.go).
// Elsewhere, where Landlock scopes signals (ABI 6), it asks the zygote of
// p's plan, started on first use, which starts the command in a nested
// domain of its own; below that a helper per command confines it. Zygote
// and helper are the helper program HelperName when one of this build is
// beside this binary, this binary re-executed otherwise. It never runs
// the command unconfined: a step of the confinement that fails, or a
// zygote that cannot be started or restricted, or ends, makes Start fail
// with a *HelperError (once replaced by a fresh zygote, when one ended).
func Start(p Policy, s Spawn) (*Process, error) { return start(p, s, forkStarts) }

// forkStarts is whether Start forks commands itself (forked_linux.go)
// rather than through helpers: where vforkSteps exists (a test of the
// helpers turns it off).
var forkStarts = forkSupported

// start is Start, forking the command itself when byFork.
func start(p Policy, s Spawn, byFork bool) (*Process, error) {
	path, err := exec.LookPath(s.Shell)
	if err != nil {
		return nil, fmt.Errorf("sandbox: find shell %s: %w", s.Shell, err)
	}
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, HelperEnv+"=") })
	abi, err := Available()
	if err != nil {
		return nil, err
	}
	req := runRequest{Path: path, Args: append([]string{path}, s.Args...), Env: env, Dir: s.Dir}
	if byFork {
		return startByFork(p, req, s)
	}
	if o := takeSpare(); o != nil {
		proc, err := startByOneShot(o, p, req, s)
		if !errors.Is(err, errProgramMismatch) && !errors.Is(err, errOneShotUnused) {
			return proc, err
		}
		if errors.Is(err, errProgramMismatch) {
			noteProgramMismatch(o.path)
		}
		// It ran nothing: the command starts the usual way.
	}
	if abi < MinScopeABI {
		if program := helperProgram(); program != "" && !programMismatched.Load() {
			proc, err := startHelper(program, programMarker(), p, path, s, env)
			if !errors.Is(err, errProgramMismatch) {
				return proc, err
			}
			noteProgramMismatch(program)
		}
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sandbox: find this program to re-execute: %w", err)
		}
		return startHelper(self, helperVersion, p, path, s, env)
	}
	enc, err := cachedArgs(p)
	if err != nil {
		return nil, err
	}
	files, closeFiles, err := stdioOf(s)
	if err != nil {
		return nil, err
	}
	defer closeFiles()
	for attempt := 0; ; attempt++ {
		z, err := zygoteFor(enc)
		if err != nil {
			return nil, err
		}
		proc, retry, err := z.run(req, files)
		if err == nil {
			return proc, nil
		}
		if !retry || attempt > 0 {
			return nil, err
		}
		// This zygote ended or saw its state changed: a fresh one, once.
	}
}

// startHelper is Start by the per-command helper: program run with
// marker (see command).
func startHelper(program, marker string, p Policy, path string, s Spawn, env []string) (*Process, error) {
	cmd, started, err := command(program, marker, p, path, s.Args, env)
	if err != nil {
		return nil, err
	}
	cmd.Dir = s.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.Stdin, s.Stdout, s.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = started()
		return nil, fmt.Errorf("sandbox: start the helper: %w", err)
	}
	if err := started(); err != nil {
		_ = cmd.Wait()
		return nil, err
	}
	return processOf(cmd), nil
}

// startByOneShot is Start by Prestart's one-shot helper.
func startByOneShot(o *oneShot, p Policy, req runRequest, s Spawn) (*Process, error) {
	c := o.settle()
	if !adoptPrepared(p, c) {
		c = cached(p)
	}
	enc, err := c.enc, c.encErr
	if err != nil {
		o.drop()
		return nil, err
	}
	files, closeFiles, err := stdioOf(s)
	if err != nil {
		o.drop()
		return nil, err
	}
	defer closeFiles()
	return o.run(enc, c == o.prepared && o.ready, req, files)
}

// stdioOf returns the command's three standard files, /dev/null for
// those s leaves nil, and a function that closes what it opened.
func stdioOf(s Spawn) ([]*os.File, func(), error) {
	files := []*os.File{s.Stdin, s.Stdout, s.Stderr}
	var opened []*os.File
	closeFiles := func() { closeAll(opened) }
	for i, f := range files {
		if f == nil {
			null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				closeFiles()
				return nil, nil, fmt.Errorf("sandbox: open %s: %w", os.DevNull, err)
			}
			files[i] = null
			opened = append(opened, null)
		}
	}
	return files, closeFiles, nil
}

func signalOf(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}

// spareHelper is Prestart's one-shot helper: started is closed once o is
// set (nil when the helper failed to start).
type spareHelper struct {
	started chan struct{}
	o       *oneShot
}

// Prestart starts a one-shot helper (oneshot_linux.go), so that the first
// sandboxed command of this process (`toolhost call bash`) finds one past
// the start of its program, waiting for its plan and command. It returns
// at once (the helper is started meanwhile) and does nothing where
// commands are not confined or one is waiting.
func Prestart() {
	if _, err := Available(); err != nil {
		return
	}
	if forkStarts {
		// No helper: the command is forked by this process, which builds
		// the ruleset of the plan PreloadPlans reads meanwhile.
		forkPrepared.Lock()
		forkPrepared.on = true
		forkPrepared.Unlock()
		return
	}
	zygotes.Lock()
	defer zygotes.Unlock()
	if zygotes.spare != nil {
		return
	}
	spare := &spareHelper{started: make(chan struct{})}
	zygotes.spare = spare
	go func() {
		spare.o, _ = startOneShot() // on failure the command starts the usual way, and reports why
		close(spare.started)
	}()
}

// takeSpare returns Prestart's one-shot helper, once started, or nil.
func takeSpare() *oneShot {
	zygotes.Lock()
	spare := zygotes.spare
	zygotes.spare = nil
	zygotes.Unlock()
	if spare == nil {
		return nil
	}
	<-spare.started
	return spare.o
}

// prepareSpare sends Prestart's helper, once started and unless taken
// meanwhile, the plan of c in advance (oneShot.prepare). It returns at
// once.
func prepareSpare(c *cachedPlan) {
	if forkStarts {
		prepareFork(c)
		return
	}
	zygotes.Lock()
	spare := zygotes.spare
	zygotes.Unlock()
	if spare == nil {
		return
	}
	go func() {
		<-spare.started
		if spare.o != nil {
			spare.o.prepare(c)
		}
	}()
}

// DropSpare ends the helper Prestart started, when no command will use
// it (the sandbox turned off in the config).
func DropSpare() {
	if o := takeSpare(); o != nil {
		o.drop()
	}
}
