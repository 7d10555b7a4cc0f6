package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/source"
)

// fakeSource is an embedder's source: a fixed first load, then whatever
// changes the test hands it, and a record of being closed.
type fakeSource struct {
	kind    runtime.Source
	first   source.Loaded
	loadErr error

	mu      sync.Mutex
	pending []source.Change
	closed  bool
}

func (f *fakeSource) Kind() runtime.Source { return f.kind }
func (f *fakeSource) Load(context.Context) (source.Loaded, error) {
	return f.first, f.loadErr
}
func (f *fakeSource) Close(context.Context) error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return nil
}
func (f *fakeSource) Folders() []string { return nil }
func (f *fakeSource) Look(_ context.Context, apply func(source.Change)) {
	f.mu.Lock()
	p := f.pending
	f.pending = nil
	f.mu.Unlock()
	for _, c := range p {
		apply(c)
	}
}
func (f *fakeSource) push(c source.Change) {
	f.mu.Lock()
	f.pending = append(f.pending, c)
	f.mu.Unlock()
}

func echoTool(id string) runtime.Tool {
	return runtime.Define(id, "answers "+id, func(context.Context, struct{}, *runtime.Context) (runtime.Result, error) {
		return runtime.Result{Output: id}, nil
	})
}

func TestAnEmbeddersSourceLoadsIsFollowedAndIsClosed(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	ctx := context.Background()
	src := &fakeSource{kind: runtime.SourceRuntime, first: source.Loaded{
		Tools:  []runtime.Tool{echoTool("first")},
		Errors: []runtime.LoadError{{Source: runtime.SourceRuntime, File: "broken.thing", Reason: "does not parse"}},
	}}
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t), Sources: []source.Opener{func(source.Env) source.Source { return src }}, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := h.Registry.Source("first"); !ok || s != runtime.SourceRuntime {
		t.Fatalf("the source's tool is not in the registry under its kind: %v %v", s, ok)
	}
	if len(h.LoadErrors) != 1 || h.LoadErrors[0].File != "broken.thing" {
		t.Errorf("load errors = %v, want the source's one", h.LoadErrors)
	}
	src.push(source.Change{Remove: []string{"first"}, Add: []runtime.Tool{echoTool("second")}})
	waitFor(t, "the change is applied", func() bool { return h.Registry.Has("second") && !h.Registry.Has("first") })
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if !src.closed {
		t.Error("Close did not close the embedder's source")
	}
}

func TestASourceThatCannotLoadFailsNewAndWhatOpenedIsClosed(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	opened := &fakeSource{kind: runtime.SourceRuntime, first: source.Loaded{Tools: []runtime.Tool{echoTool("ok")}}}
	failing := &fakeSource{kind: runtime.SourceRuntime, loadErr: errors.New("the database is gone")}
	h, err := New(context.Background(), Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t), Sources: []source.Opener{func(source.Env) source.Source { return opened }, func(source.Env) source.Source { return failing }}})
	if err == nil || h != nil {
		t.Fatalf("New = %v, %v; want no host and the source's error", h, err)
	}
	if !strings.Contains(err.Error(), "the database is gone") {
		t.Errorf("error %q does not carry the source's", err)
	}
	if !opened.closed || !failing.closed {
		t.Errorf("closed: opened %v, failing %v; want both", opened.closed, failing.closed)
	}
}

// Each source has its own switch: leaving out wasm modules keeps plugin
// folders, and the other way round.
func TestOffLeavesOutOnlyTheSourcesItNames(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	files := map[string]string{
		".toolhost/tool/broken.wasm":                "not wasm",
		".toolhost/plugin/bad/toolhost-plugin.json": `{"name": "bad"}`,
	}
	for rel, body := range files {
		p := filepath.Join(project, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	kinds := func(off ...runtime.Source) map[runtime.Source]bool {
		h, err := New(context.Background(), Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t), Off: off})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close(context.Background())
		out := map[runtime.Source]bool{}
		for _, le := range h.LoadErrors {
			out[le.Source] = true
		}
		return out
	}
	tests := []struct {
		name string
		off  []runtime.Source
		want map[runtime.Source]bool
	}{
		{"nothing off: both report their broken files", nil, map[runtime.Source]bool{runtime.SourceWasm: true, runtime.SourcePlugin: true}},
		{"wasm off: the plugin folder still loads", []runtime.Source{runtime.SourceWasm}, map[runtime.Source]bool{runtime.SourcePlugin: true}},
		{"plugins off: the tool folder still loads", []runtime.Source{runtime.SourcePlugin}, map[runtime.Source]bool{runtime.SourceWasm: true}},
	}
	for _, tt := range tests {
		got := kinds(tt.off...)
		if len(got) != len(tt.want) || got[runtime.SourceWasm] != tt.want[runtime.SourceWasm] || got[runtime.SourcePlugin] != tt.want[runtime.SourcePlugin] {
			t.Errorf("%s: load errors from %v, want %v", tt.name, got, tt.want)
		}
	}
}
