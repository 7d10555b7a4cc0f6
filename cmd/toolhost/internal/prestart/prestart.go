// Package prestart starts the sandbox's one-shot helper as early as a Go
// program can, for `toolhost call bash`, and sets a `call`'s garbage
// collection for a process that exits after one call. Where toolhost
// forks commands itself (sandbox.ForksCommands, linux/amd64) there is no
// helper: sandbox.Prestart only marks the process as one that runs one
// command, so that the kept plan's ruleset is built while it loads.
//
// Elsewhere the helper is a program of its own that must start (runtime, package
// initialisation) before it can confine the command, and toolhost's own
// start takes several milliseconds of package initialisation before main
// runs. This package depends on the sandbox package alone, so Go
// initialises it, and runs its init, a few milliseconds before the
// packages that make up the rest of toolhost: the two starts overlap, and
// the helper waits for its command instead of the command for it. The
// CLI's own call to sandbox.Prestart stays: it does nothing when one was
// started here, and starts one when the command line was not recognised
// here (a flag between call and bash). Recognising more than needed costs
// one process that exits when toolhost does.
//
// Only where an earlier call kept a sandbox plan in the default cache
// directory: a user whose config turns the sandbox off would otherwise
// pay for a helper started and dropped in every call (the CLI asks the
// same before its own Prestart).
package prestart

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/sandbox"
)

func init() {
	if callsBash(os.Args[1:]) && sandbox.PlansKept(filepath.Join(cacheDir(os.Getenv), "sandbox-plans")) {
		sandbox.Prestart()
	}
	if sub, _ := subcommand(os.Args[1:]); sub == "call" && os.Getenv("GOGC") == "" {
		// One call, then exit: a collection near the start's 4 MB heap
		// goal (a sandboxed bash call crossed it) cost 2.5 ms of CPU
		// and woke every thread, for memory returned at exit anyway.
		// The heap may now grow to five times what is live first.
		debug.SetGCPercent(400)
	}
}

// cacheDir is runtime.DefaultCacheDir, which this package does not import:
// runtime's dependencies would be initialised before this package.
func cacheDir(env func(string) string) string {
	if d := env("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "toolhost")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "toolhost")
}

// callsBash reports whether args are a `call bash` command line: the
// subcommand "call", then "bash" as its first argument that is no flag.
func callsBash(args []string) bool {
	sub, rest := subcommand(args)
	if sub != "call" {
		return false
	}
	for _, b := range rest {
		if !strings.HasPrefix(b, "-") {
			return b == "bash"
		}
	}
	return false
}

// valueFlags are toolhost's global flags that take the next argument as
// their value (cli's root command).
var valueFlags = []string{"-C", "--dir", "--log-level", "--log-format"}

// subcommand returns the first argument that is neither a flag nor a
// global flag's value, and the arguments after it.
func subcommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case slices.Contains(valueFlags, a):
			i++ // its value
		case strings.HasPrefix(a, "-"):
		default:
			return a, args[i+1:]
		}
	}
	return "", nil
}
