package inbox

import "time"

// An answer nobody takes is recorded sooner in tests.
func init() { ackTimeout = 300 * time.Millisecond }
