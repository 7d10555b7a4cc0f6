package inbox

import "time"

// Connections that hold the server without using it are dropped sooner in
// tests, so the tests that wait for that wait little.
func init() {
	bodyTimeout = time.Second
	idleTimeout = time.Second
}

// MaxEventStreams is maxEventStreams, for tests.
const MaxEventStreams = maxEventStreams
