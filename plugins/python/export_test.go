package python

import (
	"context"
	"time"
)

// WaitIdle waits until the pool for sb holds an instance (tests measure
// from a warm start).
func (f *File) WaitIdle(sb Sandbox, within time.Duration) bool {
	end := time.Now().Add(within)
	for time.Now().Before(end) {
		f.mu.Lock()
		p := f.pools[sb.key()]
		f.mu.Unlock()
		if p != nil && len(p) > 0 {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// RunPass runs python.wasm on a bare `pass` script on a live runtime: the
// floor every Python call sits on (the benchmarks' baseline).
func (r *Runtime) RunPass(ctx context.Context) error {
	in, err := r.startArgs(ctx, []string{"python", "-I", "-S", "-c", "pass"}, src{}, Sandbox{}, time.Minute)
	if err != nil {
		return err
	}
	<-in.done
	if in.err != nil && !isExit0(in.err) {
		return in.err
	}
	return nil
}

// StartLoop starts python.wasm on an endless loop; the channel closes
// when the instance has ended.
func (r *Runtime) StartLoop(ctx context.Context) (<-chan struct{}, error) {
	in, err := r.startArgs(ctx, []string{"python", "-I", "-S", "-c", "while True: pass"}, src{}, Sandbox{}, time.Minute)
	if err != nil {
		return nil, err
	}
	return in.done, nil
}
