package sandbox

import "errors"

// The helper's marker: argv[1] is HelperArg and HelperEnv holds
// helperVersion. Command sets both; nothing else should.
const (
	HelperArg     = "__toolhost_sandbox_exec__"
	HelperEnv     = "TOOLHOST_SANDBOX_HELPER"
	helperVersion = "2"
	// statusFD is the helper's status pipe: an error message, or nothing
	// when the shell was started (close-on-exec closes it).
	statusFD = 3
	// helperFailed is the helper's exit status when it could not restrict
	// itself or start the shell.
	helperFailed = 126
	// A plan longer than maxPlanArg is passed on planFD (argv[2] is then
	// planFromFD): one argument may hold 128 KiB at most. maxPlan bounds
	// what the helper reads.
	maxPlanArg = 64 << 10
	planFromFD = "@4"
	planFD     = 4
	maxPlan    = 64 << 20
)

// MinNetworkABI is the Landlock ABI network false needs: TCP connect and
// bind (ABI 4) and the abstract UNIX socket scope (ABI 6).
const MinNetworkABI = 6

// MinScopeABI is the Landlock ABI with scopes: from it on, commands may
// signal only their own processes.
const MinScopeABI = 6

// ErrUnsupported is returned by Available where the kernel or the system
// has no Landlock.
var ErrUnsupported = errors.New("landlock is not supported on this system")

// HelperError is the helper's report that it could not confine the command;
// the command did not run.
type HelperError struct{ Msg string }

func (e *HelperError) Error() string {
	return "sandbox: " + e.Msg + `; set "sandbox": {"enabled": false} in the config to run commands without it`
}
