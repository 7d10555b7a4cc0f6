//go:build toolhost_notrace

package cli

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/toolhost/toolhost/runtime"
)

// Built with -tags toolhost_notrace: no OpenTelemetry in the binary (the
// OTLP exporter adds about 3.5 MB). An endpoint asked for is refused
// rather than ignored.

const envOTLPEndpoint = "OTEL_EXPORTER_OTLP_ENDPOINT"

func traceCalls(_ context.Context, _ *runtime.Registry, endpoint string, _ *slog.Logger) (func(), error) {
	if endpoint != "" || os.Getenv(envOTLPEndpoint) != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		return nil, errors.New("this toolhost was built without tracing (-tags toolhost_notrace): unset OTEL_EXPORTER_OTLP_ENDPOINT and --otlp-endpoint, or use a build with tracing")
	}
	return func() {}, nil
}
