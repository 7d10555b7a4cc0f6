package tracing

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The OTLP specification's JSON encoding of ExportTraceServiceRequest
// (opentelemetry-proto's collector/trace/v1, as ProtoJSON writes it):
// lowerCamelCase field names, trace and span ids in hex, enums as
// integers, 64-bit integers as decimal strings. Written here so that the
// binary needs neither protobuf nor gRPC to export a span.

type otlpRequest struct {
	ResourceSpans []*otlpResourceSpans `json:"resourceSpans"`
}

type otlpResourceSpans struct {
	Resource   otlpResource      `json:"resource"`
	ScopeSpans []*otlpScopeSpans `json:"scopeSpans"`
	SchemaURL  string            `json:"schemaUrl,omitempty"`
}

type otlpResource struct {
	Attributes []otlpKeyValue `json:"attributes,omitempty"`
}

type otlpScopeSpans struct {
	Scope     otlpScope  `json:"scope"`
	Spans     []otlpSpan `json:"spans"`
	SchemaURL string     `json:"schemaUrl,omitempty"`
}

type otlpScope struct {
	Name       string         `json:"name,omitempty"`
	Version    string         `json:"version,omitempty"`
	Attributes []otlpKeyValue `json:"attributes,omitempty"`
}

type otlpSpan struct {
	TraceID                string         `json:"traceId"`
	SpanID                 string         `json:"spanId"`
	TraceState             string         `json:"traceState,omitempty"`
	ParentSpanID           string         `json:"parentSpanId,omitempty"`
	Flags                  uint32         `json:"flags,omitempty"`
	Name                   string         `json:"name"`
	Kind                   int            `json:"kind,omitempty"`
	StartTimeUnixNano      string         `json:"startTimeUnixNano"`
	EndTimeUnixNano        string         `json:"endTimeUnixNano"`
	Attributes             []otlpKeyValue `json:"attributes,omitempty"`
	DroppedAttributesCount int            `json:"droppedAttributesCount,omitempty"`
	Events                 []otlpEvent    `json:"events,omitempty"`
	DroppedEventsCount     int            `json:"droppedEventsCount,omitempty"`
	Links                  []otlpLink     `json:"links,omitempty"`
	DroppedLinksCount      int            `json:"droppedLinksCount,omitempty"`
	Status                 otlpStatus     `json:"status"`
}

type otlpEvent struct {
	TimeUnixNano           string         `json:"timeUnixNano"`
	Name                   string         `json:"name"`
	Attributes             []otlpKeyValue `json:"attributes,omitempty"`
	DroppedAttributesCount int            `json:"droppedAttributesCount,omitempty"`
}

type otlpLink struct {
	TraceID                string         `json:"traceId"`
	SpanID                 string         `json:"spanId"`
	TraceState             string         `json:"traceState,omitempty"`
	Attributes             []otlpKeyValue `json:"attributes,omitempty"`
	DroppedAttributesCount int            `json:"droppedAttributesCount,omitempty"`
	Flags                  uint32         `json:"flags,omitempty"`
}

type otlpStatus struct {
	Message string `json:"message,omitempty"`
	Code    int    `json:"code,omitempty"`
}

type otlpKeyValue struct {
	Key   string       `json:"key"`
	Value otlpAnyValue `json:"value"`
}

// otlpAnyValue has exactly one field set (none for an empty value).
type otlpAnyValue struct {
	StringValue *string        `json:"stringValue,omitempty"`
	BoolValue   *bool          `json:"boolValue,omitempty"`
	IntValue    *string        `json:"intValue,omitempty"`
	DoubleValue any            `json:"doubleValue,omitempty"` // a number, or "NaN", "Infinity", "-Infinity"
	ArrayValue  *otlpArray     `json:"arrayValue,omitempty"`
	KvlistValue *otlpKeyValues `json:"kvlistValue,omitempty"`
	BytesValue  *string        `json:"bytesValue,omitempty"` // base64
}

type otlpArray struct {
	Values []otlpAnyValue `json:"values"`
}

type otlpKeyValues struct {
	Values []otlpKeyValue `json:"values"`
}

// OTLP's status codes (STATUS_CODE_OK is 1, ERROR 2), which are not
// OpenTelemetry Go's (Error is 1, Ok 2).
var otlpStatusCode = map[codes.Code]int{codes.Unset: 0, codes.Ok: 1, codes.Error: 2}

// Span flags: the W3C trace flags in the low byte, then whether the
// parent's remoteness is known (always, here) and whether it is remote.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// encodeSpans is the JSON body of one export request: spans grouped by
// resource, then by instrumentation scope, each group in the order its
// first span came.
func encodeSpans(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	type resKey struct {
		attrs  attribute.Distinct
		schema string
	}
	type scopeKey struct {
		res                   resKey
		name, version, schema string
		attrs                 attribute.Distinct
	}
	var req otlpRequest
	byRes := map[resKey]*otlpResourceSpans{}
	byScope := map[scopeKey]*otlpScopeSpans{}
	for _, s := range spans {
		var rk resKey
		var rattrs []attribute.KeyValue
		if r := s.Resource(); r != nil {
			rk = resKey{r.Equivalent(), r.SchemaURL()}
			rattrs = r.Attributes()
		}
		rs := byRes[rk]
		if rs == nil {
			rs = &otlpResourceSpans{Resource: otlpResource{Attributes: keyValues(rattrs)}, SchemaURL: rk.schema}
			byRes[rk] = rs
			req.ResourceSpans = append(req.ResourceSpans, rs)
		}
		is := s.InstrumentationScope()
		sk := scopeKey{rk, is.Name, is.Version, is.SchemaURL, is.Attributes.Equivalent()}
		ss := byScope[sk]
		if ss == nil {
			ss = &otlpScopeSpans{
				Scope:     otlpScope{Name: is.Name, Version: is.Version, Attributes: keyValues(is.Attributes.ToSlice())},
				SchemaURL: is.SchemaURL,
			}
			byScope[sk] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, encodeSpan(s))
	}
	return json.Marshal(&req)
}

func encodeSpan(s sdktrace.ReadOnlySpan) otlpSpan {
	sc := s.SpanContext()
	out := otlpSpan{
		TraceID:                sc.TraceID().String(),
		SpanID:                 sc.SpanID().String(),
		TraceState:             sc.TraceState().String(),
		Flags:                  flags(sc, s.Parent().IsRemote()),
		Name:                   s.Name(),
		Kind:                   int(s.SpanKind()), // OTLP's SPAN_KIND_* have OpenTelemetry Go's values
		StartTimeUnixNano:      unixNano(s.StartTime()),
		EndTimeUnixNano:        unixNano(s.EndTime()),
		Attributes:             keyValues(s.Attributes()),
		DroppedAttributesCount: s.DroppedAttributes(),
		DroppedEventsCount:     s.DroppedEvents(),
		DroppedLinksCount:      s.DroppedLinks(),
		Status:                 otlpStatus{Message: s.Status().Description, Code: otlpStatusCode[s.Status().Code]},
	}
	if p := s.Parent(); p.HasSpanID() {
		out.ParentSpanID = p.SpanID().String()
	}
	for _, e := range s.Events() {
		out.Events = append(out.Events, otlpEvent{
			TimeUnixNano: unixNano(e.Time), Name: e.Name,
			Attributes: keyValues(e.Attributes), DroppedAttributesCount: e.DroppedAttributeCount,
		})
	}
	for _, l := range s.Links() {
		out.Links = append(out.Links, otlpLink{
			TraceID: l.SpanContext.TraceID().String(), SpanID: l.SpanContext.SpanID().String(),
			TraceState: l.SpanContext.TraceState().String(), Attributes: keyValues(l.Attributes),
			DroppedAttributesCount: l.DroppedAttributeCount, Flags: flags(l.SpanContext, l.SpanContext.IsRemote()),
		})
	}
	return out
}

func flags(sc trace.SpanContext, remote bool) uint32 {
	f := uint32(sc.TraceFlags()) | flagHasIsRemote
	if remote {
		f |= flagIsRemote
	}
	return f
}

func unixNano(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatUint(uint64(t.UnixNano()), 10)
}

func keyValues(kvs []attribute.KeyValue) []otlpKeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]otlpKeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = otlpKeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)}
	}
	return out
}

func anyValue(v attribute.Value) otlpAnyValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return otlpAnyValue{BoolValue: &b}
	case attribute.INT64:
		return intValue(v.AsInt64())
	case attribute.FLOAT64:
		return doubleValue(v.AsFloat64())
	case attribute.STRING:
		s := v.AsString()
		return otlpAnyValue{StringValue: &s}
	case attribute.BYTESLICE:
		b := base64.StdEncoding.EncodeToString(v.AsByteSlice())
		return otlpAnyValue{BytesValue: &b}
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), func(b bool) otlpAnyValue { return otlpAnyValue{BoolValue: &b} })
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), intValue)
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), doubleValue)
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), func(s string) otlpAnyValue { return otlpAnyValue{StringValue: &s} })
	case attribute.SLICE:
		return array(v.AsSlice(), anyValue)
	case attribute.MAP:
		return otlpAnyValue{KvlistValue: &otlpKeyValues{Values: nonNil(keyValues(v.AsMap()))}}
	}
	return otlpAnyValue{} // EMPTY
}

func array[T any](xs []T, f func(T) otlpAnyValue) otlpAnyValue {
	vs := make([]otlpAnyValue, len(xs))
	for i, x := range xs {
		vs[i] = f(x)
	}
	return otlpAnyValue{ArrayValue: &otlpArray{Values: vs}}
}

func intValue(i int64) otlpAnyValue {
	s := strconv.FormatInt(i, 10)
	return otlpAnyValue{IntValue: &s}
}

// doubleValue is a JSON number, or ProtoJSON's strings for what JSON has
// no number for.
func doubleValue(f float64) otlpAnyValue {
	switch {
	case math.IsNaN(f):
		return otlpAnyValue{DoubleValue: "NaN"}
	case math.IsInf(f, 1):
		return otlpAnyValue{DoubleValue: "Infinity"}
	case math.IsInf(f, -1):
		return otlpAnyValue{DoubleValue: "-Infinity"}
	}
	return otlpAnyValue{DoubleValue: f}
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
