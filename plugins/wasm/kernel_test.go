package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
)

// kernelCase is one entry of testdata/kernel_hostile.json: kernel
// functions called in order, as a guest would, and what the last one
// must do.
type kernelCase struct {
	Name  string  `json:"name"`
	Max   uint64  `json:"max"` // memory limit; default 1 MiB
	Calls [][]any `json:"calls"`
	// Trap is a substring of the last call's trap; Result its result
	// when it must not trap; Error a substring of errorMessage after it.
	Trap   string  `json:"trap"`
	Result *uint64 `json:"result"`
	Error  string  `json:"error"`
}

func TestKernelFunctionsRefuseHostileCallsWithATrap(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/kernel_hostile.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus []kernelCase
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&corpus); err != nil {
		t.Fatal(err)
	}
	fns := map[string]kernelFunction{}
	for _, f := range kernelFunctions {
		fns[f.name] = f
	}
	for _, tt := range corpus {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			if tt.Max == 0 {
				tt.Max = 1 << 20
			}
			k := newKernel(tt.Max, nil)
			ctx := context.WithValue(context.Background(), kernelKey{}, k)
			var last uint64
			for i, c := range tt.Calls {
				f, ok := fns[c[0].(string)]
				if !ok {
					t.Fatalf("no kernel function %v", c[0])
				}
				stack := make([]uint64, max(len(f.params), len(f.results), 1))
				for j, a := range c[1:] {
					v, err := strconv.ParseUint(string(a.(json.Number)), 10, 64)
					if err != nil {
						t.Fatal(err)
					}
					stack[j] = v
				}
				trap := run(func() { f.fn(ctx, stack) })
				lastCall := i == len(tt.Calls)-1
				if trap != "" && (!lastCall || tt.Trap == "") {
					t.Fatalf("call %d %v trapped: %s", i, c, trap)
				}
				if lastCall && tt.Trap != "" && !strings.Contains(trap, tt.Trap) {
					t.Fatalf("last call %v: trap %q, want one containing %q", c, trap, tt.Trap)
				}
				last = stack[0]
			}
			if tt.Result != nil && last != *tt.Result {
				t.Errorf("result = %d, want %d", last, *tt.Result)
			}
			if tt.Error != "" && !strings.Contains(k.errorMessage(), tt.Error) {
				t.Errorf("error message %q, want one containing %q", k.errorMessage(), tt.Error)
			}
		})
	}
}

// run calls f and returns what it panicked with, "" if nothing.
func run(f func()) (trap string) {
	defer func() {
		if r := recover(); r != nil {
			trap = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

func TestKernelMemoryReadWriteAndFreeRoundTrip(t *testing.T) {
	t.Parallel()
	k := newKernel(1<<20, nil)
	off, err := k.Write([]byte("héllo"))
	if err != nil || off == 0 {
		t.Fatalf("Write = %d, %v", off, err)
	}
	got, err := k.Read(off)
	if err != nil || string(got) != "héllo" {
		t.Fatalf("Read = %q, %v", got, err)
	}
	got[0] = 'X' // a copy: the block is unchanged
	if again, _ := k.Read(off); string(again) != "héllo" {
		t.Fatalf("Read returned the block itself: %q", again)
	}
	k.Free(off)
	if _, err := k.Read(off); err == nil {
		t.Fatal("Read of a freed block succeeded")
	}
}

// logLevelHandler is a handler at a fixed level that records messages
// with their level.
type logLevelHandler struct {
	*logSink
	level slog.Level
}

func (h logLevelHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h logLevelHandler) Handle(ctx context.Context, r slog.Record) error {
	r.AddAttrs(slog.String("level", r.Level.String()))
	return h.logSink.Handle(ctx, r)
}

func TestExtismLogCallsReachTheCallsLoggerAtTheLevelItKeeps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		level     slog.Level
		wantLevel string // get_log_level's answer
		debugKept bool
	}{
		{"a logger at info keeps the warning, drops the debug line and says 2", slog.LevelInfo, "2", false},
		{"a logger at debug keeps both and says 1", slog.LevelDebug, "1", true},
		{"a logger at error keeps neither and says 4", slog.LevelError, "4", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sink := newLogSink()
			logger := slog.New(logLevelHandler{sink, tt.level})
			h := newHost(t, nil)
			tools := discover(t, h, configDir(t, map[string]string{"logs.wasm": writeTiny(t, "logs", tiny{logs: true})}))
			tc := testContext(t, nil, nil)
			tc.Logger = logger
			res, err := call(t, tools["logs"], `{}`, tc)
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tt.wantLevel {
				t.Errorf("get_log_level = %q, want %q", res.Output, tt.wantLevel)
			}
			if got, want := sink.contains("tiny warn tool=logs source=guest session=s1 call=c1 level=WARN"), tt.level <= slog.LevelWarn; got != want {
				t.Errorf("warning logged = %v, want %v; log: %v", got, want, sink.lines)
			}
			if got := sink.contains("tiny debug"); got != tt.debugKept {
				t.Errorf("debug line logged = %v, want %v; log: %v", got, tt.debugKept, sink.lines)
			}
		})
	}
}

// TestBuildingAnEngineChangesNoProcessWideSetting builds an Engine, then
// runs a guest that logs through a stock Extism plugin: Extism's
// process-wide log level must still be its default (off), so nothing
// reaches the plugin's logger.
func TestBuildingAnEngineChangesNoProcessWideSetting(t *testing.T) {
	t.Parallel()
	h := NewEngine(EngineOptions{CacheDir: "-"})
	h.Close(context.Background())

	ctx := context.Background()
	c, err := extism.NewCompiledPlugin(ctx, extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: tinyGuest(tiny{logs: true})}}},
		extism.PluginConfig{RuntimeConfig: wazero.NewRuntimeConfigInterpreter()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	p, err := c.Instance(ctx, extism.PluginInstanceConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	p.SetLogger(func(l extism.LogLevel, msg string) { logged = append(logged, msg) })
	if _, _, err := p.CallWithContext(ctx, "execute", nil); err != nil {
		t.Fatal(err)
	}
	if len(logged) > 0 {
		t.Fatalf("Extism's process-wide log level was changed: the plugin logged %q", logged)
	}
}
