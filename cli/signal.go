package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// openTTY returns the controlling terminal when stdin or stderr is one;
// nil otherwise (CI, pipes), so nobody is asked where nobody can answer.
func openTTY() *os.File {
	if !isTerminal(os.Stderr) && !isTerminal(os.Stdin) {
		return nil
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	return f
}
