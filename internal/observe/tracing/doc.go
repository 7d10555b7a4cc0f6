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
// Why the official SDK but an exporter of toolhost's own
// (exporter.go, otlpjson.go): the SDK's tracer, batch span processor
// (a bounded queue that drops rather than blocks a call, flushed at
// shutdown) and OTEL_BSP_* variables are the specification's, kept up by
// its authors. Its OTLP/HTTP exporter (otlptracehttp) links protobuf and
// parts of gRPC through its configuration package, 5 MB of a stripped
// binary for one request type. OTLP/HTTP also accepts JSON, so toolhost
// writes ExportTraceServiceRequest in the specification's JSON encoding
// itself and honours the same OTEL_EXPORTER_OTLP_* variables (endpoint,
// headers, timeout, compression, certificates), retrying 429, 502, 503
// and 504 with backoff or the receiver's Retry-After.
//
// The runtime imports none of this: it knows only runtime.CallTracer.
package tracing
