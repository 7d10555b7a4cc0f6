package wasm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
)

func TestBrokenModulesAreReportedAndSkipped(t *testing.T) {
	t.Parallel()
	dir := configDir(t, map[string]string{
		"echo.wasm":          guest(t, "echo"),
		"missing.wasm":       guest(t, "missing"),
		"unknownimport.wasm": guest(t, "unknownimport"),
		"badschema.wasm":     guest(t, "badschema"),
		"descpanic.wasm":     guest(t, "descpanic"),
		"bad name.wasm":      guest(t, "echo"),
	})
	os.WriteFile(filepath.Join(dir, "tool", "garbage.wasm"), []byte("this is not wasm at all"), 0o644)
	os.WriteFile(filepath.Join(dir, "tool", "truncated.wasm"), append([]byte("\x00asm\x01\x00\x00\x00\x01\xff"), make([]byte, 20)...), 0o644)
	os.WriteFile(filepath.Join(dir, "tool", "notes.txt"), []byte("not a module, not looked at"), 0o644)

	tools, errs := newHost(t, nil).Discover(context.Background(), []string{dir})
	want := map[string]string{
		"garbage.wasm":       "not a WebAssembly module",
		"truncated.wasm":     "not a valid WebAssembly module",
		"missing.wasm":       "missing export execute",
		"unknownimport.wasm": "launch_missiles",
		"badschema.wasm":     "schema of badschema",
		"descpanic.wasm":     "no description for you",
		"bad name.wasm":      "not a valid tool name",
	}
	got := map[string]string{}
	for _, e := range errs {
		got[filepath.Base(e.File)] = e.Reason
	}
	for file, reason := range want {
		if !strings.Contains(got[file], reason) {
			t.Errorf("%s: reason = %q, want it to mention %q", file, got[file], reason)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("got %d load errors, want %d: %v", len(errs), len(want), errs)
	}
	if len(tools) != 1 || tools[0].ID() != "echo" {
		t.Fatalf("tools = %v, want only echo", tools)
	}
	if _, err := call(t, tools[0], `{"text": "still here"}`, nil); err != nil {
		t.Fatal(err)
	}
}

func TestHostileCallsEndWithAClearErrorAndTheHostCarriesOn(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{
		"spin":  {TimeoutMS: 300},
		"alloc": {MemoryMaxMB: 64},
	}}
	h := newHost(t, cfg)
	dir := configDir(t, map[string]string{
		"echo.wasm": guest(t, "echo"), "spin.wasm": guest(t, "spin"), "alloc.wasm": guest(t, "alloc"),
		"trap.wasm": guest(t, "trap"), "bigout.wasm": guest(t, "bigout"), "badutf8.wasm": guest(t, "badutf8"),
	})
	tools := discover(t, h, dir)
	tests := []struct {
		tool    string
		is      error
		mention []string
	}{
		{"spin", ErrTimeout, []string{"300ms", "wasm.spin.timeout_ms"}},
		{"alloc", ErrMemoryLimit, []string{"64 MB", "wasm.alloc.memory_max_mb"}},
		{"trap", ErrTrap, []string{"guest exploded"}},
		{"bigout", ErrOutputLimit, []string{"104857600 bytes", "10 MB", "wasm.bigout.max_output_mb"}},
		{"badutf8", nil, []string{"not valid UTF-8", "offset 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			for attempt := range 2 { // the second call gets a fresh instance and fails the same way
				_, err := call(t, tools[tt.tool], `{}`, nil)
				if err == nil {
					t.Fatalf("call %d succeeded", attempt)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("call %d: err = %v, want %v", attempt, err, tt.is)
				}
				for _, m := range tt.mention {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("call %d: err = %q, want it to mention %q", attempt, err, m)
					}
				}
			}
			res, err := call(t, tools["echo"], `{"text": "fine"}`, nil)
			if err != nil || !strings.Contains(res.Output, "fine") {
				t.Fatalf("echo after %s: %+v, %v", tt.tool, res, err)
			}
		})
	}
}

func TestConcurrentCallsEachGetTheirOwnResult(t *testing.T) {
	t.Parallel()
	tools := discover(t, newHost(t, nil), configDir(t, map[string]string{"echo.wasm": guest(t, "echo")}))
	def, _ := tools["echo"].Init(context.Background(), runtimeInit())
	var wg sync.WaitGroup
	errs := make([]error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tc := testContext(t, nil, nil)
			tc.CallID = fmt.Sprintf("call-%d", i)
			res, err := def.Execute(context.Background(), []byte(fmt.Sprintf(`{"text": "t%d", "n": %d}`, i, i)), tc)
			if err != nil {
				errs[i] = err
				return
			}
			want := fmt.Sprintf(`{"call":"call-%d","n":%d,"text":"t%d"}`, i, i, i)
			if res.Output != want {
				errs[i] = fmt.Errorf("output %q, want %q", res.Output, want)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
}
