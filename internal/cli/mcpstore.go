package cli

import (
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
)

// watchStore is the HTTP server's store: timed for /metrics, and, for
// PostgreSQL, its connection pool exported and the server's bookkeeping
// rows (relayed answers) expiring one by one under the retention sweep.
func watchStore(m *server.Metrics, s session.Store) session.Store {
	if pg, ok := s.(*pgstore.Store); ok {
		pg.SweepRowsOf(server.BookkeepingSessions()...)
		m.WatchStorePool(func() server.StorePool {
			p := pg.PoolStat()
			return server.StorePool{Max: p.Max, Total: p.Total, Acquired: p.Acquired, Idle: p.Idle,
				Acquires: p.Acquires, EmptyAcquires: p.EmptyAcquires, AcquireWait: p.AcquireWait}
		})
	}
	return m.Store(s)
}
