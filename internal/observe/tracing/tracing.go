package tracing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// The environment variables that turn export on (the OpenTelemetry
// specification's; the exporter reads the rest of OTEL_EXPORTER_OTLP_*
// and OTEL_EXPORTER_OTLP_TRACES_*: headers, timeout, compression,
// certificates).
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
)

// Span attributes. The gen_ai.* names are OpenTelemetry's semantic
// conventions for a tool execution; toolhost.* are toolhost's own.
const (
	AttrOperation   = attribute.Key("gen_ai.operation.name")
	AttrToolName    = attribute.Key("gen_ai.tool.name")
	AttrToolCallID  = attribute.Key("gen_ai.tool.call.id")
	AttrAgent       = attribute.Key("gen_ai.agent.name")
	AttrReplica     = attribute.Key("toolhost.replica")
	AttrOutcome     = attribute.Key("toolhost.outcome")
	AttrPermission  = attribute.Key("toolhost.permission")
	AttrDecision    = attribute.Key("toolhost.permission.outcome")
	AttrDecisions   = attribute.Key("toolhost.permission.decisions")
	AttrOutputBytes = attribute.Key("toolhost.output.bytes")
)

// Options configure New.
type Options struct {
	// Endpoint is the OTLP/HTTP endpoint's base URL
	// (http://collector:4318); "" reads OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
	// and OTEL_EXPORTER_OTLP_ENDPOINT, and with neither set tracing is off.
	Endpoint string
	// Replica names this process in every span (toolhost.replica) and as
	// the resource's service.instance.id. Default: the host name (a
	// Kubernetes pod's name).
	Replica string
	// Version is the service.version.
	Version string
	// Env reads the environment; nil is os.Getenv.
	Env func(string) string
	// Exporter replaces the OTLP exporter (tests: tracetest's in-memory
	// one); it is used whatever Endpoint and the environment say.
	Exporter sdktrace.SpanExporter
	// Sync exports each span as it ends instead of in batches (tests).
	Sync bool
}

// Tracer is a runtime.CallTracer exporting to OpenTelemetry.
type Tracer struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	replica  string
}

var _ runtime.CallTracer = (*Tracer)(nil)

// New returns the tracer opts and the environment ask for, or nil (and no
// error) when tracing is off: no endpoint, or OTEL_SDK_DISABLED=true.
// Shutdown flushes what is left; call it before the process exits.
func New(ctx context.Context, opts Options) (*Tracer, error) {
	env := opts.Env
	if env == nil {
		env = os.Getenv
	}
	exp := opts.Exporter
	if exp == nil {
		if env(EnvSDKDisabled) == "true" {
			return nil, nil
		}
		// The endpoint is resolved as the specification says: a base
		// URL gets /v1/traces, a traces URL is used as it is.
		var url string
		switch {
		case opts.Endpoint != "":
			url = strings.TrimRight(opts.Endpoint, "/") + "/v1/traces"
		case env(EnvTracesEndpoint) != "":
			url = env(EnvTracesEndpoint)
		case env(EnvEndpoint) != "":
			url = strings.TrimRight(env(EnvEndpoint), "/") + "/v1/traces"
		default:
			return nil, nil
		}
		e, err := newExporter(url, env)
		if err != nil {
			return nil, err
		}
		exp = e
	}
	replica := opts.Replica
	if replica == "" {
		replica, _ = os.Hostname()
	}
	res, err := resource.Merge(resource.Default(), resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName("toolhost"),
		semconv.ServiceVersion(opts.Version),
		semconv.ServiceInstanceID(replica),
	))
	if err != nil {
		res = resource.Default()
	}
	var proc sdktrace.SpanProcessor = sdktrace.NewBatchSpanProcessor(exp)
	if opts.Sync {
		proc = sdktrace.NewSimpleSpanProcessor(exp)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(proc), sdktrace.WithResource(res))
	return &Tracer{provider: tp, tracer: tp.Tracer("github.com/toolhost/toolhost"), replica: replica}, nil
}

// Shutdown exports the spans not yet sent, within ctx, and stops.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return t.provider.Shutdown(ctx)
}

// StartCall implements runtime.CallTracer.
func (t *Tracer) StartCall(ctx context.Context, c runtime.WatchedCall) (context.Context, runtime.CallSpan) {
	ctx, span := t.tracer.Start(ctx, "execute_tool "+c.Tool, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		AttrOperation.String("execute_tool"),
		AttrToolName.String(c.Tool),
		AttrToolCallID.String(c.CallID),
		AttrAgent.String(c.Agent),
		AttrReplica.String(t.replica),
	))
	return ctx, &callSpan{span: span}
}

// callSpan gathers a call's decisions and ends its span.
type callSpan struct {
	span      trace.Span
	decisions []string
}

// Decided implements runtime.CallSpan: the last decision is in
// toolhost.permission and toolhost.permission.outcome, every one in
// toolhost.permission.decisions ("bash=allowed_by_rule"), and each is an
// event.
func (c *callSpan) Decided(perm string, o permission.Outcome) {
	c.decisions = append(c.decisions, perm+"="+string(o))
	c.span.SetAttributes(AttrPermission.String(perm), AttrDecision.String(string(o)), AttrDecisions.StringSlice(c.decisions))
	c.span.AddEvent("permission", trace.WithAttributes(AttrPermission.String(perm), AttrDecision.String(string(o))))
}

// End implements runtime.CallSpan.
func (c *callSpan) End(res runtime.Result, err error) {
	outcome := "ok"
	if err != nil {
		outcome = string(permission.Kind(err))
		if outcome == "" {
			outcome = "error"
		}
		// A refusal is the permission system working, not a failure of
		// the service; only errors mark the span as failed.
		if outcome == "error" && !errors.Is(err, context.Canceled) {
			// The kind of error, not its text: a tool's error often
			// quotes its arguments (a URL with credentials, a
			// command, a file's text), and the trace backend sees
			// every caller's calls. The text is in the caller's
			// result and the server's log.
			c.span.AddEvent("exception", trace.WithAttributes(attribute.String("exception.type", errorType(err))))
			c.span.SetStatus(codes.Error, "tool call failed")
		}
	}
	c.span.SetAttributes(AttrOutcome.String(outcome), AttrOutputBytes.Int(len(res.Output)))
	c.span.End()
}

// errorType is the Go type of the innermost error err wraps.
func errorType(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return fmt.Sprintf("%T", err)
		}
		err = next
	}
}
