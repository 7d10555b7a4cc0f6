package runtime

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
)

// sourced is a tool whose output names its source, so a call shows which
// tool an id resolved to.
func sourced(id string, src Source) Tool {
	return Define(id, string(src)+" "+id, func(context.Context, struct{}, *Context) (Result, error) {
		return Result{Output: string(src)}, nil
	})
}

// op is one change of a registry in a precedence case.
type op struct {
	add    bool
	source Source
}

func TestAnIDResolvesToTheHighestPrecedenceSourceHoldingIt(t *testing.T) {
	t.Parallel()
	add := func(s Source) op { return op{add: true, source: s} }
	remove := func(s Source) op { return op{source: s} }
	tests := []struct {
		name    string
		ops     []op
		want    Source // "" when the id should be gone
		sources []Source
	}{
		{"a built-in alone is the tool", []op{add(SourceBuiltin)}, SourceBuiltin, []Source{SourceBuiltin}},
		{"a wasm module shadows the built-in", []op{add(SourceBuiltin), add(SourceWasm)}, SourceWasm, []Source{SourceWasm, SourceBuiltin}},
		{"removing the wasm module gives the built-in back", []op{add(SourceBuiltin), add(SourceWasm), remove(SourceWasm)}, SourceBuiltin, []Source{SourceBuiltin}},
		{"the order of adding does not matter, precedence does", []op{add(SourceWasm), add(SourceBuiltin)}, SourceWasm, []Source{SourceWasm, SourceBuiltin}},
		{"mcp beats plugin beats wasm", []op{add(SourcePlugin), add(SourceMCP), add(SourceWasm)}, SourceMCP, []Source{SourceMCP, SourcePlugin, SourceWasm}},
		{"a runtime registration beats every source", []op{add(SourceMCP), add(SourceRuntime), add(SourceBuiltin)}, SourceRuntime, []Source{SourceRuntime, SourceMCP, SourceBuiltin}},
		{"removing the top reveals the next, not the bottom", []op{add(SourceBuiltin), add(SourcePlugin), add(SourceMCP), remove(SourceMCP)}, SourcePlugin, []Source{SourcePlugin, SourceBuiltin}},
		{"removing a hidden source leaves the top in place", []op{add(SourceBuiltin), add(SourceWasm), remove(SourceBuiltin)}, SourceWasm, []Source{SourceWasm}},
		{"removing a source that never held the id changes nothing", []op{add(SourceBuiltin), remove(SourceWasm)}, SourceBuiltin, []Source{SourceBuiltin}},
		{"removing the last source removes the id", []op{add(SourceWasm), remove(SourceWasm)}, "", nil},
		{"a source re-adding its tool replaces it without duplicates", []op{add(SourceWasm), add(SourceWasm), add(SourceBuiltin)}, SourceWasm, []Source{SourceWasm, SourceBuiltin}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newTestRegistry(t, nil)
			for _, o := range tt.ops {
				if o.add {
					r.Add(o.source, sourced("read", o.source))
				} else {
					r.Remove(o.source, "read")
				}
			}
			if src, _ := r.Source("read"); src != tt.want {
				t.Errorf("resolves to %q, want %q", src, tt.want)
			}
			if got := r.Sources("read"); !slices.Equal(got, tt.sources) {
				t.Errorf("sources %v, want %v", got, tt.sources)
			}
			if tt.want == "" {
				if r.Has("read") || slices.Contains(r.IDs(), "read") {
					t.Error("a removed id is still listed")
				}
				return
			}
			res, err := r.Call(context.Background(), Call{Tool: "read"})
			if err != nil || res.Output != string(tt.want) {
				t.Errorf("call ran %q (err %v), want the %s tool", res.Output, err, tt.want)
			}
			tools, err := r.Tools(context.Background(), "", "")
			if err != nil || len(tools) != 1 || tools[0].Source != tt.want || tools[0].Description != string(tt.want)+" read" {
				t.Errorf("listing %+v (err %v), want the %s tool", tools, err, tt.want)
			}
		})
	}
}

// TestReadWasmAddedThenRemovedGivesBackTheBuiltinsTraits is the issue's
// example: the shadowing module declares nothing, so while it is there the
// gate asks about it; once it is gone the built-in's declaration is back.
func TestReadWasmAddedThenRemovedGivesBackTheBuiltinsTraits(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	builtin := Declare(sourced("read", SourceBuiltin), Traits{ChecksOwnPermission: true, Hints: &Hints{ReadOnly: true}})
	r.Add(SourceBuiltin, builtin)
	r.Add(SourceWasm, sourced("read", SourceWasm))
	if tr := r.Traits("read"); tr.ChecksOwnPermission || tr.Hints != nil {
		t.Errorf("the module took on the built-in's traits: %+v", tr)
	}
	r.Remove(SourceWasm, "read")
	if tr := r.Traits("read"); !tr.ChecksOwnPermission || tr.Hints == nil || !tr.Hints.ReadOnly {
		t.Errorf("the built-in's traits did not come back: %+v", tr)
	}
	res, err := r.Call(context.Background(), Call{Tool: "read"})
	if err != nil || res.Output != string(SourceBuiltin) {
		t.Errorf("call ran %q (err %v), want the built-in", res.Output, err)
	}
}

func TestShadowingIsLoggedAndAnUnknownSourceRefused(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logs bytes.Buffer
	r := newTestRegistry(t, nil, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &logs}, nil))
	})
	r.Add(SourceBuiltin, sourced("echo", SourceBuiltin))
	r.Add(SourceWasm, sourced("echo", SourceWasm))
	r.Add(Source("builtins"), sourced("stray", SourceBuiltin))
	r.Remove("echo") // a tool id where the source belongs
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "tool id collision") || !strings.Contains(logs.String(), "hidden=builtin") {
		t.Errorf("no shadowing warning logged: %s", logs.String())
	}
	if r.Has("stray") || !strings.Contains(logs.String(), "tools from an unknown source") {
		t.Errorf("a tool from an unknown source was added, or not logged: %s", logs.String())
	}
	if src, _ := r.Source("echo"); src != SourceWasm || !strings.Contains(logs.String(), "remove from an unknown source") {
		t.Errorf("a remove naming no source changed %s, or was not logged: %s", src, logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestGenerationCountsEveryChangeAndNothingElse(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	steps := []struct {
		name    string
		do      func()
		changed bool
	}{
		{"adding a tool", func() { r.Add(SourceBuiltin, sourced("a", SourceBuiltin)) }, true},
		{"listing tools", func() { _, _ = r.Tools(context.Background(), "", "") }, false},
		{"calling a tool", func() { _, _ = r.Call(context.Background(), Call{Tool: "a"}) }, false},
		{"adding nothing", func() { r.Add(SourceWasm) }, false},
		{"shadowing it", func() { r.Add(SourceWasm, sourced("a", SourceWasm)) }, true},
		{"removing a tool that is not there", func() { r.Remove(SourceMCP, "a", "zzz") }, false},
		{"removing the shadow", func() { r.Remove(SourceWasm, "a") }, true},
		{"adding a hook", func() { r.AddHook(HookFuncs{}) }, true},
	}
	for _, s := range steps {
		before := r.Generation()
		s.do()
		if got := r.Generation() != before; got != s.changed {
			t.Errorf("%s: generation changed %v, want %v", s.name, got, s.changed)
		}
	}
}

// TestTheDefinitionCacheFollowsTheResolvedTool: a listing initialised
// before a shadowing module arrived must not be served after it left, nor
// the module's while it is there.
func TestTheDefinitionCacheFollowsTheResolvedTool(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, sourced("read", SourceBuiltin))
	describe := func() string {
		tools, err := r.Tools(context.Background(), "m", "")
		if err != nil || len(tools) != 1 {
			t.Fatalf("tools %+v, err %v", tools, err)
		}
		return tools[0].Description
	}
	for i, step := range []struct {
		do   func()
		want string
	}{
		{func() {}, "builtin read"},
		{func() { r.Add(SourceWasm, sourced("read", SourceWasm)) }, "wasm read"},
		{func() { r.Remove(SourceWasm, "read") }, "builtin read"},
	} {
		step.do()
		if got := describe(); got != step.want {
			t.Errorf("step %d: description %q, want %q", i, got, step.want)
		}
	}
}

// TestCallsWhileASourceComesAndGoesAlwaysFindATool: a module added and
// removed over and over while calls run never leaves read missing, since
// the built-in stays underneath (run with -race).
func TestCallsWhileASourceComesAndGoesAlwaysFindATool(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, sourced("read", SourceBuiltin))
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 200 {
			r.Add(SourceWasm, sourced("read", SourceWasm))
			r.Remove(SourceWasm, "read")
		}
	})
	for range 4 {
		wg.Go(func() {
			for range 100 {
				res, err := r.Call(context.Background(), Call{Tool: "read"})
				if err != nil || (res.Output != string(SourceWasm) && res.Output != string(SourceBuiltin)) {
					t.Errorf("call while the module came and went: %q, %v", res.Output, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// While one goroutine replaces a wasm tool over and over, calls from
// another always find a tool: Replace never leaves the id unresolved.
func TestReplaceNeverLeavesAnIDWithoutATool(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceWasm, sourced("echo", SourceWasm))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				r.Replace(SourceWasm, []string{"echo"}, sourced("echo", SourceWasm))
			}
		}
	}()
	for range 2000 {
		if !r.Has("echo") {
			t.Error("echo unresolved during a replace")
			break
		}
	}
	close(stop)
	wg.Wait()
	gen := r.Generation()
	r.Replace(SourceWasm, []string{"echo"})
	if r.Has("echo") || r.Generation() == gen {
		t.Errorf("replacing with nothing left echo (has %v) or no new generation", r.Has("echo"))
	}
	gen = r.Generation()
	r.Replace(SourceWasm, []string{"absent"})
	if r.Generation() != gen {
		t.Error("a replace that changed nothing bumped the generation")
	}
}

type countingHook struct{ n *int }

func (h *countingHook) BeforeExecute(context.Context, *BeforeExecute) error { *h.n++; return nil }
func (h *countingHook) AfterExecute(context.Context, *AfterExecute) error   { return nil }

func TestSwapHooksReplacesByIdentityAndKeepsUncomparableHooks(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, sourced("echo", SourceBuiltin))
	var oldN, newN, funcN int
	old := &countingHook{n: &oldN}
	funcs := HookFuncs{Before: func(context.Context, *BeforeExecute) error { funcN++; return nil }}
	r.AddHook(old)
	r.AddHook(funcs)
	r.SwapHooks([]Hook{old, funcs}, []Hook{&countingHook{n: &newN}})
	if _, err := r.Call(context.Background(), Call{Tool: "echo"}); err != nil {
		t.Fatal(err)
	}
	if oldN != 0 || newN != 1 {
		t.Errorf("old hook ran %d times, new %d; want 0 and 1", oldN, newN)
	}
	if funcN != 1 {
		t.Errorf("a HookFuncs (uncomparable) was removed or skipped: ran %d times", funcN)
	}
}
