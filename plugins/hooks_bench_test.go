package plugins

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

// BenchmarkHookedCall measures what a plugin's before/after hooks (and
// the event it is sent) add to a call of a trivial native tool; compare
// with BenchmarkUnhookedCall from the same run.
func BenchmarkHookedCall(b *testing.B) { benchCall(b, true) }

// BenchmarkUnhookedCall is the baseline of BenchmarkHookedCall.
func BenchmarkUnhookedCall(b *testing.B) { benchCall(b, false) }

func benchCall(b *testing.B, hooked bool) {
	reg := pluginRegistry(b, nil, b.TempDir(), nil)
	reg.Add(runtime.SourceBuiltin, runtime.Define("noop", "Do nothing.", func(ctx context.Context, a struct {
		Text string `json:"text"`
	}, tc *runtime.Context) (runtime.Result, error) {
		return runtime.Result{Output: a.Text}, nil
	}))
	if hooked {
		h := NewEngine(EngineOptions{CacheDir: sharedCache})
		b.Cleanup(func() { h.Close(context.Background()) })
		src, err := DirBundle(pluginDir(b, guardManifest, map[string]string{"guard.wasm": guest(b, "guard")}))
		if err != nil {
			b.Fatal(err)
		}
		p, err := h.LoadPlugin(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		reg.AddHook(p.Hooks)
	}
	c := runtime.Call{Tool: "noop", Args: json.RawMessage(`{"text":"ping"}`), SessionID: "s"}
	if _, err := reg.Call(context.Background(), c); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := reg.Call(context.Background(), c); err != nil {
			b.Fatal(err)
		}
	}
}
