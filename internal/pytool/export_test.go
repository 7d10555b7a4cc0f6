package pytool

import "time"

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
