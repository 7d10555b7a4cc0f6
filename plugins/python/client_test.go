package python_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/python/pytooltest"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// echoModel is the client's model: it answers with the prompt it got.
type echoModel struct{ asks int }

func (m *echoModel) Sample(_ context.Context, req runtime.SampleRequest) (runtime.SampleResult, error) {
	m.asks++
	return runtime.SampleResult{Role: "assistant", Model: "m1", Content: runtime.SampleContent{Type: "text", Text: "said " + req.Messages[0].Content.Text}}, nil
}

// TestSamplingIsGrantedByTheToolsWasmConfig: a Python tool reads its
// "sampling" grant where a wasm module does (js.Grants), ctx.sample's
// str shorthand is one user message, and without the grant the client's
// model is never asked.
func TestSamplingIsGrantedByTheToolsWasmConfig(t *testing.T) {
	f, err := python.Load(context.Background(), filepath.Join("testdata", "summarise.py"), python.LoadOptions{Runtime: pytooltest.Runtime(t), CacheDir: t.TempDir(), PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	def, err := f.Tools(nil)[0].Init(context.Background(), runtime.InitContext{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		wasm     map[string]config.WasmConfig
		want     string // the output, or in the error
		wantAsks int
	}{
		{"granted, the client's model answers", map[string]config.WasmConfig{"summarise": {Sampling: true}}, "m1: said Summarise: a long text", 1},
		{"without a grant it is refused naming the key to set", nil, `grant it with "sampling": true under "wasm.summarise"`, 0},
		{"a grant to another tool is no grant", map[string]config.WasmConfig{"other": {Sampling: true}}, `under "wasm.summarise"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &echoModel{}
			tc := runtime.NewContext(runtime.Context{Config: &config.Config{Wasm: tt.wasm}}, nil, nil)
			tc.Client.Sampler = m
			res, err := def.Execute(context.Background(), json.RawMessage(`{"text":"a long text"}`), tc)
			got := res.Output
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if m.asks != tt.wantAsks {
				t.Errorf("the model was asked %d times, want %d", m.asks, tt.wantAsks)
			}
		})
	}
}
