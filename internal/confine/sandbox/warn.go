package sandbox

import "log/slog"

// WarnIfUnavailable logs, at a host's start, that bash commands will run
// unconfined because this system cannot confine them (Available says
// why), for a config that turns the sandbox on: the person learns it once,
// before the first command rather than in its result.
func WarnIfUnavailable(log *slog.Logger) {
	if _, err := Available(); err != nil {
		log.Warn("bash sandbox unavailable; commands run under the permission rules alone", "err", err)
	}
}
