package tracing

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

var fastRetry = retryPolicy{initial: time.Millisecond, max: 5 * time.Millisecond}

func oneSpan() []sdktrace.ReadOnlySpan {
	return tracetest.SpanStubs{{Name: "execute_tool read"}}.Snapshots()
}

// answers is a receiver answering each request with the next status
// (the last one repeated), recording what it was sent.
type answers struct {
	mu       sync.Mutex
	statuses []int
	header   http.Header // sent with each answer
	bodies   []string
	headers  []http.Header
}

func (a *answers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, "bad gzip", http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, _ := io.ReadAll(body)
	a.mu.Lock()
	n := len(a.bodies)
	a.bodies = append(a.bodies, string(b))
	a.headers = append(a.headers, r.Header.Clone())
	status := a.statuses[min(n, len(a.statuses)-1)]
	a.mu.Unlock()
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	if status >= 400 {
		_, _ = w.Write([]byte(`{"code":8,"message":"slow down"}`))
	}
}

func (a *answers) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.bodies)
}

func testExporter(t *testing.T, h http.Handler, env map[string]string) *exporter {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	e, err := newExporter(srv.URL+"/v1/traces", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	e.retry = fastRetry
	return e
}

func TestTheExporterRetriesWhatTheReceiverSaysToRetry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		statuses []int
		attempts int
		fails    bool
	}{
		{"429 then 503 then 200 is sent on the third attempt", []int{429, 503, 200}, 3, false},
		{"502 and 504 are retried too", []int{502, 504, 200}, 3, false},
		{"400 is not retried", []int{400, 200}, 1, true},
		{"404 is not retried", []int{404, 200}, 1, true},
		{"a receiver that stays at 503 is given up within the timeout", []int{503}, -1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := &answers{statuses: c.statuses}
			e := testExporter(t, a, map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "500"})
			start := time.Now()
			err := e.ExportSpans(t.Context(), oneSpan())
			if (err != nil) != c.fails {
				t.Fatalf("export = %v; want failure %v", err, c.fails)
			}
			if c.attempts > 0 && a.count() != c.attempts {
				t.Errorf("%d attempts; want %d", a.count(), c.attempts)
			}
			if c.attempts < 0 && (a.count() < 3 || time.Since(start) > 5*time.Second) {
				t.Errorf("%d attempts in %s; want several, within the 500 ms timeout", a.count(), time.Since(start))
			}
			if err != nil && !strings.Contains(err.Error(), "slow down") {
				t.Errorf("error %q does not carry the receiver's message", err)
			}
		})
	}
}

func TestTheExporterWaitsAsLongAsRetryAfterSays(t *testing.T) {
	t.Parallel()
	a := &answers{statuses: []int{429, 200}, header: http.Header{"Retry-After": {"1"}}}
	e := testExporter(t, a, nil)
	start := time.Now()
	if err := e.ExportSpans(t.Context(), oneSpan()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second || a.count() != 2 {
		t.Errorf("%d attempts in %s; want the second after Retry-After's second", a.count(), d)
	}
	// A Retry-After beyond the timeout is not waited for.
	b := &answers{statuses: []int{503, 200}, header: http.Header{"Retry-After": {"60"}}}
	e = testExporter(t, b, map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "1000"})
	start = time.Now()
	if err := e.ExportSpans(t.Context(), oneSpan()); err == nil || time.Since(start) > 5*time.Second || b.count() != 1 {
		t.Errorf("export = %v after %s and %d attempts; want an error at once", err, time.Since(start), b.count())
	}
}

func TestTheExporterSendsTheEnvironmentsHeadersAndCompression(t *testing.T) {
	t.Parallel()
	a := &answers{statuses: []int{200}}
	e := testExporter(t, a, map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":        "x-team=tools,api-key=generic,malformed",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key=se%20cret, x-tenant = a%2Cb",
		"OTEL_EXPORTER_OTLP_COMPRESSION":    "gzip",
	})
	if err := e.ExportSpans(t.Context(), oneSpan()); err != nil {
		t.Fatal(err)
	}
	h := a.headers[0]
	// The traces-specific variable replaces the generic one, as the
	// specification says for every OTEL_EXPORTER_OTLP_TRACES_* variable.
	if h.Get("Api-Key") != "se cret" || h.Get("X-Tenant") != "a,b" || h.Get("X-Team") != "" || h.Get("Content-Encoding") != "gzip" {
		t.Errorf("headers %v; want api-key and x-tenant decoded, gzip, and no x-team", h)
	}
	var req otlpRequest
	if err := json.Unmarshal([]byte(a.bodies[0]), &req); err != nil || req.ResourceSpans[0].ScopeSpans[0].Spans[0].Name != "execute_tool read" {
		t.Errorf("the gzipped body %q did not decode to the span: %v", a.bodies[0], err)
	}
}

func TestAPartialSuccessIsReportedAndNotRetried(t *testing.T) {
	t.Parallel()
	e := testExporter(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"partialSuccess":{"rejectedSpans":"1","errorMessage":"span too large"}}`))
	}), nil)
	err := e.ExportSpans(t.Context(), oneSpan())
	if err == nil || !strings.Contains(err.Error(), "rejected 1 spans: span too large") {
		t.Errorf("export = %v; want the rejection reported", err)
	}
}

func TestTheExporterRefusesAMalformedConfiguration(t *testing.T) {
	t.Parallel()
	for endpoint, env := range map[string]map[string]string{
		"localhost:4318":                   nil,
		"ftp://collector/v1/traces":        nil,
		"http:///v1/traces":                nil,
		"http://collector:4318/v1/traces":  {"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
		"http://collector:4318/v1/traces/": {"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
		"https://collector/v1/traces":      {"OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem"},
	} {
		if _, err := newExporter(endpoint, func(k string) string { return env[k] }); err == nil {
			t.Errorf("newExporter(%q, %v) succeeded; want an error", endpoint, env)
		}
	}
}

func TestAttributeValuesAreEncodedAsOTLPJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		value attribute.Value
		want  string
	}{
		{attribute.StringValue(""), `{"stringValue":""}`},
		{attribute.BoolValue(false), `{"boolValue":false}`},
		{attribute.Int64Value(math.MaxInt64), `{"intValue":"9223372036854775807"}`},
		{attribute.Int64Value(-1), `{"intValue":"-1"}`},
		{attribute.Float64Value(0), `{"doubleValue":0}`},
		{attribute.Float64Value(1.5), `{"doubleValue":1.5}`},
		{attribute.Float64Value(math.NaN()), `{"doubleValue":"NaN"}`},
		{attribute.Float64Value(math.Inf(-1)), `{"doubleValue":"-Infinity"}`},
		{attribute.StringSliceValue([]string{"a", "b"}), `{"arrayValue":{"values":[{"stringValue":"a"},{"stringValue":"b"}]}}`},
		{attribute.Int64SliceValue([]int64{7}), `{"arrayValue":{"values":[{"intValue":"7"}]}}`},
		{attribute.BoolSliceValue(nil), `{"arrayValue":{"values":[]}}`},
		{attribute.ByteSliceValue([]byte{0xff, 0}), `{"bytesValue":"/wA="}`},
		{attribute.MapValue(attribute.String("k", "v")), `{"kvlistValue":{"values":[{"key":"k","value":{"stringValue":"v"}}]}}`},
		{attribute.Value{}, `{}`},
	} {
		got, err := json.Marshal(anyValue(c.value))
		if err != nil || string(got) != c.want {
			t.Errorf("%s %v encodes as %s (%v); want %s", c.value.Type(), c.value.Emit(), got, err, c.want)
		}
	}
}

func TestAShutDownExporterSendsNothing(t *testing.T) {
	t.Parallel()
	a := &answers{statuses: []int{200}}
	e := testExporter(t, a, nil)
	if err := e.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := e.ExportSpans(t.Context(), oneSpan()); err == nil || a.count() != 0 {
		t.Errorf("export after shutdown = %v with %d requests; want an error and none", err, a.count())
	}
}
