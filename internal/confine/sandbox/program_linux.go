//go:build linux

package sandbox

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// HelperName is the sandbox helper program shipped beside toolhost
// (cmd/toolhost-sandbox): the per-command helper without the rest of
// toolhost linked, so it starts in about a millisecond where re-executing
// toolhost takes ten or more (see the package doc, "The helper program").
const HelperName = "toolhost-sandbox"

// The helper program's answers on the status pipe, before anything else
// it writes there: programOK once it has confined itself (an error after
// it means the shell could not be started), programMismatch when it was
// built from other sandbox code than its caller. Every version of the
// program keeps both, so that any two versions can tell each other apart.
const (
	programOK       = "ok\n"
	programMismatch = "mismatch\n"
)

// errProgramMismatch is the helper program's answer that it is not the
// sandbox code of this build, or a program that gave no answer at all:
// the command did not run, and this binary confines it itself.
var errProgramMismatch = errors.New("the sandbox helper program is from another build")

// sources are this package's files: what identity hashes.
//
//go:embed *.go
var sources embed.FS

// linkedModules are the modules whose code the helper runs besides this
// package's: their versions are part of identity.
var linkedModules = []string{
	"github.com/landlock-lsm/go-landlock",
	"github.com/elastic/go-seccomp-bpf",
	"golang.org/x/sys",
	"golang.org/x/net",
	"kernel.org/pub/linux/libs/security/libcap/psx",
}

// identity names the sandbox code of this build: the helper protocol's
// version, the Go release, this package's source and the versions of the
// modules it links. toolhost and a helper program built from the same
// source (one release, one `go install` at one version, one checkout)
// share it; any difference in what enforces a plan makes it differ. A
// test binary carries no module versions, so no program matches it (its
// tests ask the program for its own: `toolhost-sandbox version`).
var identity = sync.OnceValue(func() string {
	h := sha256.New()
	io.WriteString(h, helperVersion+"\x00"+runtime.Version()+"\x00"+runtime.GOARCH+"\x00")
	// The files a build compiles; read through one buffer (ReadFile
	// would copy each: page faults a helper starting in a millisecond
	// notices).
	entries, _ := sources.ReadDir(".")
	buf := make([]byte, 16<<10)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := sources.Open(e.Name())
		if err != nil {
			continue
		}
		io.WriteString(h, e.Name()+"\x00")
		_, _ = io.CopyBuffer(h, f, buf)
		f.Close()
		h.Write([]byte{0})
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			for _, m := range linkedModules {
				if d.Path == m {
					if d.Replace != nil {
						d = d.Replace
					}
					io.WriteString(h, d.Path+"@"+d.Version+" "+d.Sum+"\x00")
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
})

// programMarker is HelperEnv's value for the helper program: it runs a
// command only when it is the same sandbox code as its caller.
func programMarker() string { return helperVersion + "+" + identity() }

// helperProgramPath is where the helper program must be: beside the
// running executable (a test points it elsewhere).
var helperProgramPath = func() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(self), HelperName), nil
}

// helperProgram returns the helper program to use, or "" when there is
// none this binary may trust (trustedProgram).
var helperProgram = sync.OnceValue(func() string {
	path, err := helperProgramPath()
	if err != nil {
		return ""
	}
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if err := trustedProgram(path, self); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("sandbox: not using the helper program; each command starts toolhost again, which is slower", "path", path, "err", err)
		}
		return ""
	}
	return path
})

// trustedProgram reports why the helper program at path may not confine
// commands for the executable self, or nil: it must be a regular,
// executable file (not a link), with self's owner, and writable by no one
// self is not writable by — so that whoever could replace or change it
// could replace toolhost itself. (Whether it is the same sandbox code is
// asked of it with each command: programMarker.)
func trustedProgram(path, self string) error {
	hi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	si, err := os.Stat(self)
	if err != nil {
		return err
	}
	hs, ok1 := hi.Sys().(*syscall.Stat_t)
	ss, ok2 := si.Sys().(*syscall.Stat_t)
	switch {
	case !hi.Mode().IsRegular():
		return errors.New("not a regular file")
	case hi.Mode()&0o111 == 0:
		return errors.New("not executable")
	case !ok1 || !ok2 || hs.Uid != ss.Uid:
		return errors.New("its owner is not toolhost's")
	case hi.Mode().Perm()&^si.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("writable by others than toolhost is (mode %v, toolhost's %v)", hi.Mode().Perm(), si.Mode().Perm())
	}
	return nil
}

// programMismatched is set once the helper program answered that it is
// another build's: this process then stops asking it.
var programMismatched atomic.Bool

// noteProgramMismatch stops this process from asking the helper program
// at path, which answered that it is another build's, and says so once.
func noteProgramMismatch(path string) {
	if !programMismatched.Swap(true) {
		slog.Warn("sandbox: the helper program beside toolhost is from another build; install both from the same release (toolhost now starts itself to confine commands, which is slower)", "path", path)
	}
}

// programStatus reads the helper program's status message: programOK
// alone means the shell runs.
func programStatus(msg string) error {
	switch {
	case msg == programOK:
		return nil
	case len(msg) > len(programOK) && msg[:len(programOK)] == programOK:
		return &HelperError{Msg: msg[len(programOK):]}
	case msg == "" || msg == programMismatch:
		return errProgramMismatch
	}
	return &HelperError{Msg: msg}
}

// helperMain is the helper program's main once this package's init has
// not taken over: it was run by another build of toolhost (which reads
// programMismatch, or a zygote's end without an answer, and confines the
// command itself), or by hand.
func helperMain() {
	if len(os.Args) > 1 && os.Args[1] == ZygoteArg {
		os.Exit(helperFailed)
	}
	if len(os.Args) > 1 && (os.Args[1] == HelperArg || os.Args[1] == OneShotArg) {
		if status := os.NewFile(statusFD, "sandbox-status"); status != nil {
			_, _ = io.WriteString(status, programMismatch)
		}
		os.Exit(helperFailed)
	}
	if len(os.Args) == 2 && os.Args[1] == "version" {
		// What this program answers to (programMarker): the same as
		// toolhost's `doctor` shows for a toolhost of the same build.
		io.WriteString(os.Stdout, programMarker()+"\n")
		os.Exit(0)
	}
	io.WriteString(os.Stderr, HelperName+": toolhost runs this program to confine bash commands (Landlock); it does nothing when run by hand\n")
	os.Exit(2)
}

// ProgramState is the helper program this binary would confine commands
// with (`toolhost doctor`): its path, or "" and why none is used. It runs
// the program to ask which build it is.
func ProgramState() (path, problem string) {
	path, err := helperProgramPath()
	if err != nil {
		return "", err.Error()
	}
	self, err := os.Executable()
	if err != nil {
		return "", err.Error()
	}
	if err := trustedProgram(path, self); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "no " + HelperName + " beside toolhost"
		}
		return "", path + ": " + err.Error()
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != programMarker() {
		return "", path + " is from another build than toolhost"
	}
	return path, ""
}
