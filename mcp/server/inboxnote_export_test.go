package server

import "time"

// A waiting call's progress is repeated within the test's patience.
func init() { inboxHeartbeat = 100 * time.Millisecond }
