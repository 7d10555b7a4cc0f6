package server

import (
	"testing"
	"time"
)

// A waiting call's progress is repeated within the test's patience.
func init() { inboxHeartbeat = 100 * time.Millisecond }

func TestTheHeartbeatIsSetByTheEnvironmentWithinLimits(t *testing.T) {
	t.Parallel()
	def := 20 * time.Second
	for _, tc := range []struct {
		name, v string
		want    time.Duration
	}{
		{"unset keeps the default", "", def},
		{"a duration sets it", "1s", time.Second},
		{"the smallest allowed is 100ms", "100ms", 100 * time.Millisecond},
		{"below 100ms keeps the default", "10ms", def},
		{"zero keeps the default", "0s", def},
		{"negative keeps the default", "-5s", def},
		{"not a duration keeps the default", "20", def},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := heartbeatFromEnv(tc.v, def); got != tc.want {
				t.Errorf("heartbeatFromEnv(%q) = %v; want %v", tc.v, got, tc.want)
			}
		})
	}
}
