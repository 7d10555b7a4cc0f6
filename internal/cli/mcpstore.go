package cli

import (
	"context"
	"log/slog"

	"github.com/toolhost/toolhost/internal/tracing"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
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

// traceCalls gives reg an OpenTelemetry tracer when an OTLP endpoint is
// configured, and returns what flushes it at exit.
func traceCalls(ctx context.Context, reg *runtime.Registry, endpoint string, log *slog.Logger) (stop func(), err error) {
	tr, err := tracing.New(ctx, tracing.Options{Endpoint: endpoint, Version: versionString()})
	if err != nil || tr == nil {
		return func() {}, err
	}
	reg.TraceCalls(tr)
	log.Info("tracing tool calls over OTLP/HTTP")
	return func() {
		if err := tr.Shutdown(context.WithoutCancel(ctx)); err != nil {
			log.Warn("traces not all exported", "err", err)
		}
	}, nil
}
