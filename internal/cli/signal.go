package cli

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/toolhost/toolhost/host"
)

// signalContext ends on the first SIGINT or SIGTERM; commands then wind
// down and exit. A second signal ends the process at once, with the
// default disposition, should winding down hang.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// closeGrace bounds how long a long-running command waits, once it is told
// to stop, for work under way (a module compiling, a call finishing)
// before it exits anyway; the operating system releases what is left.
const closeGrace = time.Second

// watching makes a host that keeps its tools in step with the tool folders.
func watching(o *host.Options) { o.Watch = true }

// closeHost closes h within closeGrace of the command's end.
func closeHost(ctx context.Context, log *slog.Logger, h *host.Host) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeGrace)
	defer cancel()
	if err := h.Close(cctx); err != nil && log != nil {
		log.Debug("host not fully closed before exit", "err", err)
	}
}

// hostUntilSignal builds the host like g.host, but gives up when ctx ends
// first (a signal during start-up, while modules compile): it then waits
// closeGrace for the build to finish and close, and returns errStopped.
func hostUntilSignal(ctx context.Context, build func(context.Context) (*host.Host, error)) (*host.Host, error) {
	type built struct {
		h   *host.Host
		err error
	}
	c := make(chan built, 1)
	go func() {
		h, err := build(ctx)
		c <- built{h, err}
	}()
	select {
	case b := <-c:
		if b.err == nil && ctx.Err() != nil {
			closeHost(ctx, nil, b.h)
			return nil, errStopped
		}
		return b.h, b.err
	case <-ctx.Done():
		select {
		case b := <-c:
			if b.h != nil {
				closeHost(ctx, nil, b.h)
			}
		case <-time.After(closeGrace):
		}
		return nil, errStopped
	}
}

// errStopped reports that a signal stopped the command before it served:
// not a failure (exit 0).
var errStopped = errors.New("stopped by a signal")

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
