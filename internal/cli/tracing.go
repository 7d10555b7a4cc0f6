package cli

import (
	"context"
	"log/slog"

	"github.com/toolhost/toolhost/internal/observe/tracing"
	"github.com/toolhost/toolhost/runtime"
)

// envOTLPEndpoint is the variable --otlp-endpoint defaults to.
const envOTLPEndpoint = tracing.EnvEndpoint

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
