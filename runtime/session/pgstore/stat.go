package pgstore

import "time"

// PoolStat is the connection pool's state now, for metrics.
type PoolStat struct {
	// Max is the pool's size (pool_max_conns); Total the connections
	// open, Acquired those in use by a call, Idle the rest.
	Max, Total, Acquired, Idle int32
	// Acquires counts connections handed out since Open; EmptyAcquires
	// those that had to wait for one (the pool was all in use), and
	// AcquireWait the time spent waiting, summed.
	Acquires, EmptyAcquires int64
	AcquireWait             time.Duration
}

// PoolStat reads the pool's state; cheap enough for every scrape.
func (s *Store) PoolStat() PoolStat {
	st := s.pool.Stat()
	return PoolStat{
		Max: st.MaxConns(), Total: st.TotalConns(), Acquired: st.AcquiredConns(), Idle: st.IdleConns(),
		Acquires: st.AcquireCount(), EmptyAcquires: st.EmptyAcquireCount(), AcquireWait: st.AcquireDuration(),
	}
}
