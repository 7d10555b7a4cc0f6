package tracing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolhost/toolhost/internal/observe/tracing"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

type pathParams struct {
	Path string `json:"path"`
}

// registry has one tool, "guarded", that asks permission "guarded" for
// its path; the rules allow "ok*" and deny everything else.
func registry(t *testing.T) *runtime.Registry {
	t.Helper()
	var cfg config.Config
	if err := json.Unmarshal([]byte(`{"permission": {"guarded": {"*": "deny", "ok*": "allow"}}}`), &cfg); err != nil {
		t.Fatal(err)
	}
	reg, err := runtime.NewRegistry(runtime.Options{Config: &cfg, Directory: t.TempDir(), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceRuntime, runtime.WithOwnPermission(runtime.Define("guarded", "Asks permission guarded for a path.", func(ctx context.Context, p pathParams, tc *runtime.Context) (runtime.Result, error) {
		if err := tc.Ask(ctx, runtime.PermissionRequest{Permission: "guarded", Patterns: []string{p.Path}}); err != nil {
			return runtime.Result{}, err
		}
		return runtime.Result{Output: "did " + p.Path}, nil
	})))
	return reg
}

func call(t *testing.T, reg *runtime.Registry, path string) error {
	t.Helper()
	args, _ := json.Marshal(pathParams{path})
	_, err := reg.Call(t.Context(), runtime.Call{Tool: "guarded", SessionID: "ses_1", CallID: "call_" + path, Args: args})
	return err
}

func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestEachCallsSpanCarriesItsPermissionDecisionAndTheReplica(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tr, err := tracing.New(t.Context(), tracing.Options{Exporter: exp, Sync: true, Replica: "replica-2", Env: func(string) string { return "" }})
	if err != nil || tr == nil {
		t.Fatalf("New with an exporter = %v, %v", tr, err)
	}
	reg := registry(t)
	reg.TraceCalls(tr)
	if err := call(t, reg, "ok.txt"); err != nil {
		t.Fatal(err)
	}
	var denied *permission.DeniedError
	if err := call(t, reg, "secret.txt"); !errors.As(err, &denied) {
		t.Fatalf("call on secret.txt = %v; want denied", err)
	}
	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans; want one per call", len(spans))
	}
	for _, c := range []struct {
		span              int
		callID, outcome   string
		decision, decided string
	}{
		{0, "call_ok.txt", "ok", "allowed_by_rule", "guarded=allowed_by_rule"},
		{1, "call_secret.txt", "denied", "denied", "guarded=denied"},
	} {
		s := spans[c.span]
		a := attrs(s.Attributes)
		if s.Name != "execute_tool guarded" {
			t.Errorf("span %d is named %q", c.span, s.Name)
		}
		for k, want := range map[attribute.Key]string{
			tracing.AttrReplica: "replica-2", tracing.AttrToolName: "guarded", tracing.AttrToolCallID: c.callID,
			tracing.AttrOutcome: c.outcome, tracing.AttrPermission: "guarded", tracing.AttrDecision: c.decision,
		} {
			if got := a[k].AsString(); got != want {
				t.Errorf("span %d: %s = %q; want %q", c.span, k, got, want)
			}
		}
		if got := a[tracing.AttrDecisions].AsStringSlice(); !slices.Equal(got, []string{c.decided}) {
			t.Errorf("span %d: decisions %v; want [%s]", c.span, got, c.decided)
		}
		if id, ok := s.Resource.Set().Value("service.instance.id"); !ok || id.AsString() != "replica-2" {
			t.Errorf("span %d: resource service.instance.id = %v", c.span, id)
		}
	}
}

func TestTracingIsOffWithoutAnEndpoint(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{
		{},
		{tracing.EnvEndpoint: "http://127.0.0.1:1", tracing.EnvSDKDisabled: "true"},
	} {
		tr, err := tracing.New(t.Context(), tracing.Options{Env: func(k string) string { return env[k] }})
		if tr != nil || err != nil {
			t.Errorf("New with env %v = %v, %v; want tracing off", env, tr, err)
		}
	}
}

// A trace goes to an observability stack that sees every call of every
// caller; a tool's error often quotes its arguments (a URL with its
// credentials, a command, a file's text). The span says that the call
// failed and what kind of error it was, never the message.
func TestAFailedCallsSpanHoldsNoneOfItsErrorText(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tr, err := tracing.New(t.Context(), tracing.Options{Exporter: exp, Sync: true, Replica: "r", Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry(t)
	reg.Add(runtime.SourceRuntime, runtime.Define("leaky", "Fails quoting its path.", func(_ context.Context, p pathParams, _ *runtime.Context) (runtime.Result, error) {
		return runtime.Result{}, fmt.Errorf("cannot fetch %q", p.Path)
	}))
	reg.TraceCalls(tr)
	args, _ := json.Marshal(pathParams{"https://user:hunter2@example.test/"})
	if _, err := reg.Call(t.Context(), runtime.Call{Tool: "leaky", SessionID: "ses_1", CallID: "call_1", Args: args}); err == nil {
		t.Fatal("the leaky call succeeded")
	}
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans; want 1", len(spans))
	}
	s := spans[0]
	texts := []string{s.Status.Description}
	for _, kv := range s.Attributes {
		texts = append(texts, kv.Value.Emit())
	}
	for _, ev := range s.Events {
		texts = append(texts, ev.Name)
		for _, kv := range ev.Attributes {
			texts = append(texts, kv.Value.Emit())
		}
	}
	for _, txt := range texts {
		if strings.Contains(txt, "hunter2") {
			t.Errorf("the span holds the error's text: %q", txt)
		}
	}
	if a := attrs(s.Attributes); a[tracing.AttrOutcome].AsString() != "error" {
		t.Errorf("outcome %q; want error", a[tracing.AttrOutcome].AsString())
	}
}
