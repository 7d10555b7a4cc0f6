package tracing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/toolhost/toolhost/internal/observe/tracing"
	"github.com/toolhost/toolhost/runtime"
)

// The wire format as a receiver reads it, written from the OTLP
// specification's JSON encoding, not from the exporter's types.
type (
	wireRequest struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []wireKV `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Scope struct {
					Name string `json:"name"`
				} `json:"scope"`
				Spans []wireSpan `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	wireSpan struct {
		TraceID, SpanID, ParentSpanID, Name string
		Flags                               uint32
		Kind                                int
		StartTimeUnixNano, EndTimeUnixNano  string
		Attributes                          []wireKV
		Events                              []struct {
			Name       string   `json:"name"`
			Attributes []wireKV `json:"attributes"`
		}
		Status struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
	}
	wireKV struct {
		Key   string `json:"key"`
		Value struct {
			StringValue *string `json:"stringValue"`
			IntValue    *string `json:"intValue"`
			ArrayValue  *struct {
				Values []struct {
					StringValue string `json:"stringValue"`
				} `json:"values"`
			} `json:"arrayValue"`
		} `json:"value"`
	}
)

// UnmarshalJSON reads a span's lowerCamelCase fields.
func (s *wireSpan) UnmarshalJSON(b []byte) error {
	var w struct {
		TraceID           string   `json:"traceId"`
		SpanID            string   `json:"spanId"`
		ParentSpanID      string   `json:"parentSpanId"`
		Name              string   `json:"name"`
		Flags             uint32   `json:"flags"`
		Kind              int      `json:"kind"`
		StartTimeUnixNano string   `json:"startTimeUnixNano"`
		EndTimeUnixNano   string   `json:"endTimeUnixNano"`
		Attributes        []wireKV `json:"attributes"`
		Events            []struct {
			Name       string   `json:"name"`
			Attributes []wireKV `json:"attributes"`
		} `json:"events"`
		Status struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
	}
	err := json.Unmarshal(b, &w)
	*s = wireSpan{w.TraceID, w.SpanID, w.ParentSpanID, w.Name, w.Flags, w.Kind, w.StartTimeUnixNano, w.EndTimeUnixNano, w.Attributes, w.Events, w.Status}
	return err
}

func wireAttrs(kvs []wireKV) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.Value; {
		case v.StringValue != nil:
			m[kv.Key] = *v.StringValue
		case v.IntValue != nil:
			m[kv.Key] = "int:" + *v.IntValue
		case v.ArrayValue != nil:
			m[kv.Key] = fmt.Sprint(v.ArrayValue.Values)
		}
	}
	return m
}

// receiver is a loopback OTLP/HTTP receiver accepting JSON, as a
// collector's otlp receiver does.
func receiver(t *testing.T) (*httptest.Server, func() []wireRequest) {
	var mu sync.Mutex
	var got []wireRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("receiver got %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		var req wireRequest
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("the body is no OTLP JSON export request: %v\n%s", err, body)
		}
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []wireRequest {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// TestSpansReachAnOTLPReceiverAsJSON is the exporter against a loopback
// OTLP/HTTP receiver: ids in hex (the caller's trace continued), name,
// kind, times, attributes (an int64 as a string), the permission event,
// an error's status and the resource.
func TestSpansReachAnOTLPReceiverAsJSON(t *testing.T) {
	t.Parallel()
	recv, got := receiver(t)
	tr, err := tracing.New(t.Context(), tracing.Options{Replica: "replica-http", Version: "1.2.3", Env: func(k string) string {
		if k == tracing.EnvEndpoint {
			return recv.URL
		}
		return ""
	}})
	if err != nil || tr == nil {
		t.Fatalf("New with %s set = %v, %v", tracing.EnvEndpoint, tr, err)
	}
	reg := registry(t)
	reg.Add(runtime.SourceRuntime, runtime.Define("failing", "Fails.", func(context.Context, pathParams, *runtime.Context) (runtime.Result, error) {
		return runtime.Result{}, fmt.Errorf("broken")
	}))
	reg.TraceCalls(tr)
	parent := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled, Remote: true,
	})
	ctx := trace.ContextWithRemoteSpanContext(t.Context(), parent)
	if _, err := reg.Call(ctx, runtime.Call{Tool: "guarded", SessionID: "ses_1", CallID: "call_ok", Args: json.RawMessage(`{"path":"ok.txt"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Call(t.Context(), runtime.Call{Tool: "failing", SessionID: "ses_1", CallID: "call_fail", Args: json.RawMessage(`{"path":"x"}`)}); err == nil {
		t.Fatal("the failing call succeeded")
	}
	sctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(sctx); err != nil {
		t.Fatalf("shutdown (flushes the batch): %v", err)
	}
	spans := map[string]wireSpan{}
	for _, req := range got() {
		for _, rs := range req.ResourceSpans {
			res := wireAttrs(rs.Resource.Attributes)
			if res["service.name"] != "toolhost" || res["service.instance.id"] != "replica-http" || res["service.version"] != "1.2.3" {
				t.Errorf("resource %v; want service toolhost 1.2.3 on replica-http", res)
			}
			for _, ss := range rs.ScopeSpans {
				if ss.Scope.Name != "github.com/toolhost/toolhost" {
					t.Errorf("scope %q", ss.Scope.Name)
				}
				for _, s := range ss.Spans {
					spans[s.Name] = s
				}
			}
		}
	}
	ok, failed := spans["execute_tool guarded"], spans["execute_tool failing"]
	if len(spans) != 2 || ok.Name == "" || failed.Name == "" {
		t.Fatalf("the receiver got spans %v; want the two calls'", spans)
	}
	if ok.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || ok.ParentSpanID != "00f067aa0ba902b7" || len(ok.SpanID) != 16 || ok.SpanID == "0000000000000000" {
		t.Errorf("ids trace %q span %q parent %q; want the caller's trace and span in hex", ok.TraceID, ok.SpanID, ok.ParentSpanID)
	}
	if ok.Flags != 0x301 {
		t.Errorf("flags %#x; want sampled with a remote parent (0x301)", ok.Flags)
	}
	if len(failed.TraceID) != 32 || failed.TraceID == ok.TraceID || failed.ParentSpanID != "" {
		t.Errorf("the failing call's trace %q parent %q; want a new root trace", failed.TraceID, failed.ParentSpanID)
	}
	start, err1 := strconv.ParseUint(ok.StartTimeUnixNano, 10, 64)
	end, err2 := strconv.ParseUint(ok.EndTimeUnixNano, 10, 64)
	if err1 != nil || err2 != nil || start == 0 || end < start || ok.Kind != 1 {
		t.Errorf("times %q–%q, kind %d; want decimal strings in order and SPAN_KIND_INTERNAL (1)", ok.StartTimeUnixNano, ok.EndTimeUnixNano, ok.Kind)
	}
	a := wireAttrs(ok.Attributes)
	for k, want := range map[string]string{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "guarded", "gen_ai.tool.call.id": "call_ok",
		"toolhost.replica": "replica-http", "toolhost.outcome": "ok", "toolhost.permission.outcome": "allowed_by_rule",
		"toolhost.output.bytes": "int:10", "toolhost.permission.decisions": "[{guarded=allowed_by_rule}]",
	} {
		if a[k] != want {
			t.Errorf("attribute %s = %q; want %q", k, a[k], want)
		}
	}
	if len(ok.Events) != 1 || ok.Events[0].Name != "permission" || wireAttrs(ok.Events[0].Attributes)["toolhost.permission"] != "guarded" {
		t.Errorf("events %+v; want one permission event for guarded", ok.Events)
	}
	if ok.Status.Code != 0 || failed.Status.Code != 2 || failed.Status.Message != "tool call failed" {
		t.Errorf("status ok %+v, failed %+v; want unset, and STATUS_CODE_ERROR (2) with its message", ok.Status, failed.Status)
	}
}

// A receiver that never answers must not hold up tool calls: the batch
// processor's queue is bounded and drops, and Shutdown gives up in time.
func TestAHangingReceiverNeitherBlocksCallsNorShutdownForever(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(stop)
	tr, err := tracing.New(t.Context(), tracing.Options{Replica: "r", Env: func(k string) string {
		return map[string]string{tracing.EnvTracesEndpoint: srv.URL + "/v1/traces", "OTEL_EXPORTER_OTLP_TIMEOUT": "300"}[k]
	}})
	if err != nil || tr == nil {
		t.Fatalf("New = %v, %v", tr, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 10000 { // five times the default queue
			_, span := tr.StartCall(t.Context(), runtime.WatchedCall{Tool: "t", CallID: strconv.Itoa(i)})
			span.End(runtime.Result{}, nil)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = tr.Shutdown(ctx)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("10 000 calls and a shutdown did not finish within a minute against a receiver that never answers")
	}
}
