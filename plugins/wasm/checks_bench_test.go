package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime/config"
)

// BenchmarkGuestChecks measures what the termination checks cost a
// guest's own code (issue 32, target 3: within 1.5× of the same module
// run by wazero without them). For each guest it calls two instances of
// the same module in one loop, alternating which goes first: the floor
// (the module as built, no checks, wazero without WithCloseOnContextDone)
// and the module as the engine runs it (instrumentLoops, a cancellable
// context that interrupts the instance, as Engine.run). It reports both
// CPU times per call and their ratio, checked/floor.
//
//	go test ./plugins/wasm -run '^$' -bench 'GuestChecks' -benchtime 300x -count 3
//
// The guests: jsonwork (testdata/guests, Go: encoding/json on its input
// and output), echo (BenchmarkCall's Go guest) and hotloop
// (testdata/cguests, C: a sieve and a hash, tight loops; skipped without
// clang-14, failed in CI). The rows other than "engine" leave one part
// of the checks out (checkVariants), to measure each part's share.
func BenchmarkGuestChecks(b *testing.B) {
	for _, g := range checkGuests(b) {
		floor := checkInstance(b, g.data, false)
		for _, v := range checkVariants {
			code, interruptible := g.data, false
			if v.plan != nil {
				var err error
				if code, _, err = instrumentWith(g.data, *v.plan); err != nil {
					b.Fatal(err)
				}
				interruptible = true
			}
			checked := checkInstance(b, code, interruptible)
			b.Run(g.name+"/"+v.name, func(b *testing.B) {
				benchInterleaved(b, floor, checked, g.input)
			})
		}
	}
}

type checkGuest struct {
	name  string
	data  []byte
	input []byte
}

// checkGuests builds the benchmark's guests and their inputs.
func checkGuests(b *testing.B) []checkGuest {
	var items []map[string]any
	for i := range 12 {
		items = append(items, map[string]any{
			"name": fmt.Sprintf("record number %d", i), "tags": []string{"Alpha", "beta", fmt.Sprintf("T%d", i%7)},
			"score": float64(i*37%101) / 3, "count": i, "attrs": map[string]string{"owner": "someone", "state": "open"},
		})
	}
	jsonArgs, _ := json.Marshal(map[string]any{"items": items})
	var out []checkGuest
	for _, g := range []struct {
		name, file string
		args       []byte
	}{
		{"go-json", guest(b, "jsonwork"), jsonArgs},
		{"go-echo", guest(b, "echo"), []byte(benchArgs)},
		{"c-hotloop", cWasm(b, "testdata/cguests/hotloop"), []byte(`{"n": 200000}`)},
	} {
		data, err := os.ReadFile(g.file)
		if err != nil {
			b.Fatal(err)
		}
		input, _ := json.Marshal(execInput{Args: g.args, Context: execContext{CallID: "c1"}})
		out = append(out, checkGuest{g.name, data, input})
	}
	return out
}

// checkVariants are the checks measured: the engine's, and its parts.
var checkVariants = []struct {
	name string
	plan *loopPlan
}{
	{"engine", &loopPlan{every: checkEvery, countCalls: true}},
	// loops-only counts loop iterations only, not the entries of
	// functions that call others: the share of counting calls.
	{"loops-only", &loopPlan{every: checkEvery}},
	// no-resume flushes every loop with a plain call: the share of the
	// register spills a call in a loop costs (resumeFunc).
	{"no-resume", &loopPlan{every: checkEvery, countCalls: true, noResume: true}},
	// none runs the module as built on both sides: the benchmark's own
	// bias, which should be a ratio of 1.
	{"none", nil},
}

// checkInstance compiles code in a runtime of its own configured as the
// engine configures one (memory limit, no WithCloseOnContextDone) and
// returns an instance; interruptible says it carries the stop flag.
func checkInstance(b *testing.B, code []byte, interruptible bool) *instance {
	b.Helper()
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(sharedCache + "-checks")
	if err != nil {
		b.Fatal(err)
	}
	l := limitsOf(config.WasmConfig{}, "", "")
	rc := wazero.NewRuntimeConfig().WithCompilationCache(cache).WithMemoryLimitPages(l.MemoryPages)
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	b.Cleanup(func() { rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	if err := instantiateHostModules(ctx, rt); err != nil {
		b.Fatal(err)
	}
	mod, err := rt.CompileModule(ctx, code)
	if err != nil {
		b.Fatal(err)
	}
	in, err := newCompiled(rt, mod, interruptible, l, "bench", nil).get(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// benchInterleaved calls floor and checked in turns and reports the time
// of each call and the ratio checked/floor. The checked call runs as
// Engine.run runs it: under a cancellable context that interrupts the
// instance when done.
func benchInterleaved(b *testing.B, floor, checked *instance, input []byte) {
	callFloor := func() time.Duration {
		ctx := hostfns.WithCall(context.Background(), &hostfns.Call{Tool: "bench", Memory: floor.k})
		start := threadCPU()
		if _, _, msg, err := floor.call(ctx, "execute", input); err != nil || msg != "" {
			b.Fatal(err, msg)
		}
		return threadCPU() - start
	}
	callChecked := func() time.Duration {
		start := threadCPU()
		ctx, cancel := context.WithCancel(hostfns.WithCall(context.Background(), &hostfns.Call{Tool: "bench", Memory: checked.k}))
		stop := context.AfterFunc(ctx, checked.interrupt)
		_, _, msg, err := checked.call(ctx, "execute", input)
		stop()
		cancel()
		d := threadCPU() - start
		if err != nil || msg != "" {
			b.Fatal(err, msg)
		}
		return d
	}
	// The calls are timed on one thread's CPU clock (threadCPU): the
	// goroutine stays on its thread, and the time other processes held
	// the processor is not charged to either side.
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	callFloor() // initialise both guests' runtimes outside the measure
	callChecked()
	var tf, tc time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			tf += callFloor()
			tc += callChecked()
		} else {
			tc += callChecked()
			tf += callFloor()
		}
		i++
	}
	b.ReportMetric(float64(tf.Microseconds())/float64(i), "floor-µs/call")
	b.ReportMetric(float64(tc.Microseconds())/float64(i), "checked-µs/call")
	b.ReportMetric(float64(tc)/float64(tf), "checked/floor")
}
