package hostfns_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/internal/testkit/compiled"
	"github.com/toolhost/toolhost/plugins/js"
	"github.com/toolhost/toolhost/plugins/js/jstooltest"
	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/python/pytooltest"
	"github.com/toolhost/toolhost/runtime"
)

// This file drives log, HTTP, sample and elicit through each engine's
// adapter as its guests do — a wasm module through the Extism kernel
// functions and toolhost's imports, a JS tool's console, fetch and
// context.sample, a Python tool's toolhost.log, toolhost.fetch and
// ctx.sample — so that the tables in guests_cases_test.go and
// guests_client_test.go can ask for one decision and one log line from
// all three.

// outcome is what a guest saw of one fetch: the status and body, or the
// refusal without the engine's wire prefix ("host function http_request:",
// "fetch:").
type outcome struct {
	Status int    `json:"status,omitempty"`
	Body   string `json:"body,omitempty"`
	Error  string `json:"error,omitempty"`
}

// guest is one engine's adapter.
type guest struct {
	name  string
	fetch func(t *testing.T, e env, url string) outcome
	log   func(t *testing.T, e env, level, msg string)
	// write writes data to path under e.paths; nil for wasm, whose files
	// are WASI mounts (hostfns.Mount, as a Python tool's).
	write func(t *testing.T, e env, path, data string) outcome
	// client calls sample or elicit (op) with the request JSON req, the
	// first message's text padded with pad bytes.
	client func(t *testing.T, e env, op, req string, pad int) answer
	// loop samples req until the call's script time (timeout) is spent;
	// nil for wasm, whose clock is plugins/wasm's.
	loop func(t *testing.T, e env, req string, timeout time.Duration) error
}

// env is what one run gives a guest: the call, its logger and its HTTP
// policy.
type env struct {
	tc     *runtime.Context
	logger *slog.Logger
	policy hostfns.HTTPPolicy
	paths  map[string]string // allowed_paths
	// sampling is the tool's "sampling" grant.
	sampling bool
}

const toolID = "probe"

// wasmGuest calls the kernel functions a wasm module imports, with
// blocks in a kernel memory, as wazero would.
func wasmGuest() guest {
	fn := func(ns, name string) hostfns.Function {
		for _, f := range hostfns.Functions() {
			if f.Namespace == ns && f.Name == name {
				return f
			}
		}
		panic("no host function " + ns + " " + name)
	}
	call := func(e env, mem *memory) *hostfns.Call {
		return &hostfns.Call{Tool: toolID, Context: e.tc, Logger: e.logger, HTTP: e.policy, Memory: mem, Sampling: e.sampling}
	}
	return guest{
		name: "wasm",
		fetch: func(t *testing.T, e env, url string) (out outcome) {
			mem := &memory{blocks: map[uint64][]byte{}}
			c := call(e, mem)
			ctx := hostfns.WithCall(context.Background(), c)
			req, _ := json.Marshal(hostfns.HTTPRequest{URL: url, Method: "GET"})
			stack := []uint64{mem.put(req), 0}
			if err := trap(func() { fn(hostfns.EnvNamespace, hostfns.NameHTTPRequest).Fn(ctx, stack) }); err != nil {
				return outcome{Error: strings.TrimPrefix(err.Error(), "host function http_request: ")}
			}
			status := []uint64{0}
			fn(hostfns.EnvNamespace, hostfns.NameHTTPStatusCode).Fn(ctx, status)
			return outcome{Status: int(status[0]), Body: string(mem.blocks[stack[0]])}
		},
		log: func(t *testing.T, e env, level, msg string) {
			mem := &memory{blocks: map[uint64][]byte{}}
			ctx := hostfns.WithCall(context.Background(), call(e, mem))
			if err := trap(func() { fn(hostfns.EnvNamespace, "log_"+level).Fn(ctx, []uint64{mem.put([]byte(msg))}) }); err != nil {
				t.Fatal(err)
			}
		},
		client: func(t *testing.T, e env, op, req string, pad int) answer {
			mem := &memory{blocks: map[uint64][]byte{}}
			ctx := hostfns.WithCall(context.Background(), call(e, mem))
			stack := []uint64{mem.put(padded(t, req, pad))}
			if err := trap(func() { fn(hostfns.Namespace, op).Fn(ctx, stack) }); err != nil {
				return answer{Error: strings.TrimPrefix(err.Error(), "host function "+op+": ")}
			}
			return replyAnswer(t, op, mem.blocks[stack[0]])
		},
	}
}

func trap(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err, _ = p.(error)
			if err == nil {
				err = fmt.Errorf("%v", p)
			}
		}
	}()
	f()
	return nil
}

// memory is an Extism kernel memory as the host functions see it.
type memory struct {
	mu     sync.Mutex
	blocks map[uint64][]byte
	next   uint64
}

func (m *memory) put(b []byte) uint64 {
	off, _ := m.Write(b)
	return off
}

func (m *memory) Read(off uint64) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blocks[off]
	if !ok {
		return nil, fmt.Errorf("no block at %d", off)
	}
	return append([]byte(nil), b...), nil
}

func (m *memory) Write(b []byte) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next += 8
	m.blocks[m.next] = append([]byte(nil), b...)
	return m.next, nil
}

func (m *memory) Free(uint64) {}

// scriptGuest runs a JS or Python tool file (testdata/probe.*) whose one
// tool fetches or logs as its arguments say; call runs it with a Bridge.
func scriptGuest(name string, call func(t *testing.T, args json.RawMessage, b *js.Bridge, timeout time.Duration) (string, error)) guest {
	start := func(t *testing.T, e env, args map[string]string, timeout time.Duration) (string, error) {
		t.Helper()
		raw, _ := json.Marshal(args)
		return call(t, raw, &js.Bridge{Tool: toolID, Context: e.tc, Log: e.logger, HTTP: e.policy, Paths: e.paths, Sampling: e.sampling}, timeout)
	}
	run := func(t *testing.T, e env, args map[string]string) string {
		t.Helper()
		out, err := start(t, e, args, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	outcomeOf := func(t *testing.T, s string) outcome {
		var out outcome
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	return guest{
		name: name,
		fetch: func(t *testing.T, e env, url string) outcome {
			out := outcomeOf(t, run(t, e, map[string]string{"op": "fetch", "url": url, "level": "", "msg": ""}))
			out.Error = strings.TrimPrefix(out.Error, "fetch: ")
			return out
		},
		write: func(t *testing.T, e env, path, data string) outcome {
			return outcomeOf(t, run(t, e, map[string]string{"op": "write", "url": path, "level": "", "msg": data}))
		},
		log: func(t *testing.T, e env, level, msg string) {
			run(t, e, map[string]string{"op": "log", "url": "", "level": level, "msg": msg})
		},
		client: func(t *testing.T, e env, op, req string, pad int) answer {
			level := ""
			if pad > 0 {
				level = strconv.Itoa(pad)
			}
			var out answer
			if err := json.Unmarshal([]byte(run(t, e, map[string]string{"op": op, "url": "", "level": level, "msg": req})), &out); err != nil {
				t.Fatal(err)
			}
			out.Error = strings.TrimPrefix(out.Error, op+": ")
			return out
		},
		loop: func(t *testing.T, e env, req string, timeout time.Duration) error {
			out, err := start(t, e, map[string]string{"op": "loop", "url": "", "level": "", "msg": req}, timeout)
			if err == nil {
				t.Fatalf("the loop returned %q", out)
			}
			return err
		},
	}
}

func jsGuest(t *testing.T) guest {
	cache := t.TempDir()
	jstooltest.SeedEngine(t, cache)
	compiled.LinkDir(t, js.CompiledDir(cache), compiled.JS) // the engine compiled once per machine
	engine, err := os.ReadFile(filepath.Join(cache, "engines", "quickjs-wasi-"+js.EngineVersion+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(t.TempDir(), ".opencode")
	jstooltest.LinkZod(t, project)
	file := filepath.Join(project, "tool", "probe.ts")
	src, _ := os.ReadFile("testdata/probe.ts")
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := js.Load(context.Background(), file, js.LoadOptions{Engine: engine, CacheDir: cache, MemoryMaxMB: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return scriptGuest("js", func(t *testing.T, args json.RawMessage, b *js.Bridge, timeout time.Duration) (string, error) {
		out, err := f.Call(context.Background(), f.Defs[0].Export, args, js.CallInfo{}, js.Limits{Timeout: timeout}, b)
		if err != nil {
			return "", err
		}
		return out.Output, nil
	})
}

func pythonGuest(t *testing.T) guest {
	f, err := python.Load(context.Background(), "testdata/probe.py", python.LoadOptions{Runtime: pytooltest.Runtime(t), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return scriptGuest("python", func(t *testing.T, args json.RawMessage, b *js.Bridge, timeout time.Duration) (string, error) {
		out, err := f.Call(context.Background(), f.Defs[0], args, python.CallInfo{}, python.Limits{Timeout: timeout, MemoryMaxMB: 256}, python.Sandbox{Paths: b.Paths}, b)
		if err != nil {
			return "", err
		}
		return out.Output, nil
	})
}

// record is one line a run logged, to the host's log or to the client.
type record struct {
	To      string // "log" or "client"
	Level   slog.Level
	Message string
	Attrs   map[string]string
}

// recorder is an slog.Handler and a client log that keep what they get.
type recorder struct {
	mu   *sync.Mutex
	recs *[]record
}

func newRecorder() recorder { return recorder{mu: &sync.Mutex{}, recs: &[]record{}} }

func (r recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r recorder) WithGroup(string) slog.Handler            { return r }

func (r recorder) Handle(_ context.Context, rec slog.Record) error {
	attrs := map[string]string{}
	rec.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
	r.add(record{To: "log", Level: rec.Level, Message: rec.Message, Attrs: attrs})
	return nil
}

func (r recorder) client(_ context.Context, level slog.Level, msg string) {
	r.add(record{To: "client", Level: level, Message: msg})
}

func (r recorder) add(rec record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.recs = append(*r.recs, rec)
}

func (r recorder) all() []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]record(nil), *r.recs...)
}
