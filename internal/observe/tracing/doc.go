// Package tracing puts an OpenTelemetry span around every tool call and
// exports it over OTLP/HTTP: the runtime.CallTracer that `toolhost mcp`
// hands its registry when an OTLP endpoint is configured
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or
// --otlp-endpoint). Off otherwise: New returns nil and the chain has no
// tracing step at all.
//
// Each span ("execute_tool <tool>") carries OpenTelemetry's gen_ai
// attributes for a tool execution, the replica that ran the call
// (toolhost.replica, also the resource's service.instance.id), every
// permission decision made during the call and how the call ended
// (toolhost.outcome: ok, error, denied, rejected, corrected, unanswered).
// Arguments and output are not recorded: they may hold secrets.
//
// Why the official SDK and its OTLP/HTTP exporter
// (go.opentelemetry.io/otel, .../sdk, .../exporters/otlp/otlptrace/
// otlptracehttp): batching, retries, the OTEL_* environment variables and
// the wire format are the specification's, kept up by its authors; the
// HTTP exporter needs no gRPC connection of its own (the module still
// links parts of google.golang.org/grpc for its status types).
//
// The runtime imports none of this: it knows only runtime.CallTracer.
package tracing
