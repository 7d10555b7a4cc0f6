package js

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/tooltest"
)

// toolOf returns the fixture's export with the given id.
func toolOf(t *testing.T, fixture, id string) *Tool {
	t.Helper()
	for _, tl := range loadFixture(t, fixture).Tools(nil) {
		if tl.ID() == id {
			return tl
		}
	}
	t.Fatalf("%s exports no %s", fixture, id)
	return nil
}

func run(t *testing.T, tl *Tool, args string, tc *runtime.Context) (runtime.Result, error) {
	t.Helper()
	def, err := tl.Init(context.Background(), runtime.InitContext{})
	if err != nil {
		t.Fatal(err)
	}
	return def.Execute(context.Background(), json.RawMessage(args), tc)
}

func TestAskGoesThroughThePermissionEngine(t *testing.T) {
	t.Parallel()
	tl := toolOf(t, "guarded.ts", "guarded")
	tests := []struct {
		name    string
		answer  error
		wantOut string
		wantErr permission.Outcome // permission.Kind
	}{
		{"an allowed ask lets execute go on", nil, "deployed prod", ""},
		{"a denied ask fails the call with the denial", &permission.DeniedError{Permission: "deploy", Pattern: "prod"}, "", "denied"},
		{"a rejected ask fails the call with the rejection", &permission.RejectedError{Permission: "deploy"}, "", "rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var titles []string
			var asked []permission.Request
			tc := runtime.NewContext(runtime.Context{SessionID: "s", Tool: "guarded"},
				func(title string, _ map[string]any) { mu.Lock(); titles = append(titles, title); mu.Unlock() },
				func(_ context.Context, r permission.Request) error {
					mu.Lock()
					live := strings.Join(titles, ",")
					mu.Unlock()
					if live != "asking" {
						t.Errorf("at the ask the caller had seen %q, want the metadata sent before it", live)
					}
					asked = append(asked, r)
					return tt.answer
				})
			res, err := run(t, tl, `{"target":"prod"}`, tc)
			if len(asked) != 1 || asked[0].Permission != "deploy" || asked[0].Patterns[0] != "prod" || asked[0].Always[0] != "prod" {
				t.Fatalf("asked %+v", asked)
			}
			if tt.wantErr != "" {
				if permission.Kind(err) != tt.wantErr {
					t.Fatalf("err = %v, want a %s permission error", err, tt.wantErr)
				}
				return
			}
			if err != nil || res.Output != tt.wantOut {
				t.Fatalf("got %q, %v", res.Output, err)
			}
			if strings.Join(titles, ",") != "asking,deploying" {
				t.Fatalf("metadata updates = %v, want each as it happened", titles)
			}
		})
	}
}

func TestAskTimeIsNotScriptTime(t *testing.T) {
	tl := toolOf(t, "guarded.ts", "guarded")
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{"guarded": {TimeoutMS: 2000}}}
	tc := runtime.NewContext(runtime.Context{Config: cfg}, nil, func(ctx context.Context, _ permission.Request) error {
		return sleep(ctx, 2500*time.Millisecond) // a person taking longer than the limit
	})
	if res, err := run(t, tl, `{"target":"x"}`, tc); err != nil || res.Output != "deployed x" {
		t.Fatalf("got %q, %v; the wait for a person must not count", res.Output, err)
	}
}

func TestFetchFollowsTheEgressPolicy(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Reply", "yes")
		fmt.Fprintf(w, "hi %s", r.Header.Get("x-test"))
	}))
	defer srv.Close()
	tl := toolOf(t, "web.ts", "web")
	host := strings.TrimPrefix(srv.URL, "http://")
	host = host[:strings.LastIndex(host, ":")]
	tests := []struct {
		name, want string
		hosts      []string
	}{
		{"a listed loopback address is reached", "200 hi 1 /path yes", []string{host}},
		{"loopback is refused unless listed", "host not allowed", []string{"*.example.com"}},
		{"nothing granted, nothing reached", "allowed_hosts", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{Wasm: map[string]config.WasmConfig{"web": {AllowedHosts: tt.hosts}}}
			res, err := run(t, tl, fmt.Sprintf(`{"url":%q}`, srv.URL+"/path"), runtime.NewContext(runtime.Context{Config: cfg}, nil, nil))
			got := res.Output
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAThrownErrorIsTheToolsError(t *testing.T) {
	t.Parallel()
	_, err := run(t, toolOf(t, "fail.ts", "fail"), `{"why":"no disk"}`, nil)
	var te *ToolError
	if !errors.As(err, &te) || te.Message != "cannot do it: no disk" {
		t.Fatalf("err = %#v", err)
	}
}

func TestRunawayScriptsAreStopped(t *testing.T) {
	t.Parallel()
	f := loadFixture(t, "runaway.ts")
	tests := []struct {
		name, export string
		lim          Limits
		want         error
	}{
		{"an endless loop hits the time limit", "spin", Limits{Timeout: 200 * time.Millisecond}, wasm.ErrTimeout},
		{"a memory bomb hits the memory limit", "bomb", Limits{MemoryMaxMB: 32, Timeout: time.Minute}, wasm.ErrMemoryLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Call(context.Background(), tt.export, nil, CallInfo{}, tt.lim, nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("cancelling the call stops the script", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		if _, err := f.Call(ctx, "spin", nil, CallInfo{}, Limits{}, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("the file still serves calls afterwards", func(t *testing.T) {
		f2 := loadFixture(t, "greet.ts")
		if _, err := f2.Call(context.Background(), "default", json.RawMessage(`{"name":"x"}`), CallInfo{}, Limits{}, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestConcurrentCallsAreIsolated(t *testing.T) {
	t.Parallel()
	f := loadFixture(t, "counter.ts")
	var wg sync.WaitGroup
	got := make([]string, 2)
	for i, label := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := f.Call(context.Background(), "default", json.RawMessage(fmt.Sprintf(`{"label":%q,"waitMs":50}`, label)), CallInfo{}, Limits{}, nil)
			if err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = out.Output
		}()
	}
	wg.Wait()
	if got[0] != "a:1:a" || got[1] != "b:1:b" {
		t.Fatalf("overlapping calls saw each other: %q", got)
	}
	out, err := f.Call(context.Background(), "default", json.RawMessage(`{"label":"c"}`), CallInfo{}, Limits{}, nil)
	if err != nil || out.Output != "c:1:c" {
		t.Fatalf("a later call saw earlier ones: %v, %v", out, err)
	}
}

func TestNodeAndBunBuiltinsNameTheAlternative(t *testing.T) {
	t.Parallel()
	_, err := run(t, toolOf(t, "shell.ts", "shell"), `{}`, nil)
	if err == nil || !strings.Contains(err.Error(), "node:child_process.execSync is not available") || !strings.Contains(err.Error(), "bash tool") {
		t.Fatalf("err = %v", err)
	}
}

func TestFilesStayInsideAllowedPaths(t *testing.T) {
	t.Parallel()
	tl := toolOf(t, "files.ts", "files")
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "in.txt"), []byte("abc"), 0o644)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(work, "link.txt"))
	os.Mkdir(filepath.Join(work, "secret"), 0o755)
	tests := []struct {
		name, args, want string
		paths            map[string]string
	}{
		{"read and write inside a granted folder", `{"from":"in.txt","to":"out.txt"}`, "copied 3 bytes; uuid 36; é", map[string]string{work: "/work"}},
		{"guest paths map to the granted folder", `{"from":"in.txt","to":"/work/out2.txt"}`, "copied 3 bytes", map[string]string{work: "/work"}},
		{"nothing granted, nothing read", `{"from":"in.txt","to":"out.txt"}`, "outside the tool's allowed_paths", nil},
		{"a read-only grant refuses writes", `{"from":"in.txt","to":"out.txt"}`, "read-only", map[string]string{"ro:" + work: "/work"}},
		{"a path outside the grant is refused", `{"from":"../` + filepath.Base(outside) + `/secret.txt","to":"x"}`, "outside the tool's allowed_paths", map[string]string{work: "/work"}},
		{"a link out of the grant is refused", `{"from":"link.txt","to":"x.txt"}`, "leads through a link outside the tool's allowed_paths", map[string]string{work: "/work"}},
		{"a read-only grant inside a writable one decides its folder", `{"from":"in.txt","to":"secret/out.txt"}`, "read-only", map[string]string{work: "/work", "ro:" + filepath.Join(work, "secret"): "/secret"}},
		{"the same, by the guest path", `{"from":"in.txt","to":"/secret/out.txt"}`, "read-only", map[string]string{work: "/work", "ro:" + filepath.Join(work, "secret"): "/secret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{Wasm: map[string]config.WasmConfig{"files": {AllowedPaths: tt.paths}}}
			res, err := run(t, tl, tt.args, runtime.NewContext(runtime.Context{Config: cfg, Directory: work}, nil, nil))
			got := res.Output
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(work, "out.txt")); err != nil || string(b) != "ABC" {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
}

func TestRandomnessDiffersBetweenCallsFromOneSnapshot(t *testing.T) {
	t.Parallel()
	dir := project(t)
	p := filepath.Join(dir, "rnd.ts")
	os.WriteFile(p, []byte(`import { tool } from "@opencode-ai/plugin"
export default tool({ description: "random", args: {}, async execute() { return Math.random() + " " + crypto.randomUUID() } })`), 0o644)
	f, err := Load(context.Background(), p, LoadOptions{Runtime: testRuntime(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close(context.Background())
	seen := map[string]bool{}
	for range 3 {
		out, err := f.Call(context.Background(), "default", nil, CallInfo{}, Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if seen[out.Output] {
			t.Fatalf("a call repeated %q", out.Output)
		}
		seen[out.Output] = true
	}
}

func TestHostileTopLevelsFailToLoad(t *testing.T) {
	t.Parallel()
	dir := project(t)
	tests := []struct {
		name, src, want string
		limit           time.Duration // 0: the default
	}{
		{"an endless top level hits the load limit", `for (;;) {}`, "top level ran over", 300 * time.Millisecond},
		{"a file exporting no tool says what to export", `export const x = 1`, "exports no tool", 0},
		{"a syntax error names the file", `export default {`, "t.ts", 0},
		{"a top-level throw is the load error", `throw new Error("boom at load")`, "boom at load", 0},
		{"a missing package is named", `import "left-pad"`, `Could not resolve "left-pad"`, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprintf("t%d", i), "t.ts")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(`import { z } from "zod"
`+tt.src), 0o644)
			f, err := Load(context.Background(), p, LoadOptions{Runtime: testRuntime(t), LoadTimeout: tt.limit, Root: filepath.Dir(dir)})
			if err == nil {
				f.Close(context.Background())
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestImportsCannotCarryFilesIntoTheSandbox(t *testing.T) {
	t.Parallel()
	dir := project(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.json"), []byte(`{"key":"s3cret"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("text"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.ts"), []byte(`export const two = 2`), 0o644)
	tests := []struct{ name, imp, want string }{
		{"a JSON file outside the project", `import s from ` + strconvQuote(filepath.Join(outside, "secret.json")) + "; const two = 0", "outside the project"},
		{"a link inside the project to a file outside", `import s from "./link.json"; const two = 0`, "outside the project"},
		{"a text file, even inside the project", `import s from "./notes.txt"; const two = 0`, "not JavaScript, TypeScript or JSON"},
		{"a text import of a file outside", `import s from ` + strconvQuote(filepath.Join(outside, "secret.json")) + ` with { type: "text" }; const two = 0`, "outside the project"},
		{"a ?raw import of a system file", `import s from "/etc/hostname?raw"; const two = 0`, "outside the project"},
		{"a FIFO named like JSON, which would hold the build", `import s from "./pipe.json"; const two = 0`, "not a regular file"},
		{"a package reaching out of node_modules into the project", `import s from "evil"; const two = 0`, "reaches out of node_modules"},
		{"a project file is fine", `import { two } from "./lib"; const s = undefined`, ""},
	}
	// A hostile package imports the project's config (keys, tokens) to
	// carry it into the sandbox.
	os.WriteFile(filepath.Join(dir, "..", "opencode.json"), []byte(`{"provider":{"key":"s3cret"}}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "node_modules", "evil"), 0o755)
	os.WriteFile(filepath.Join(dir, "node_modules", "evil", "package.json"), []byte(`{"name":"evil","main":"index.js"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "node_modules", "evil", "index.js"), []byte(`import c from "../../../opencode.json"; export default c;`), 0o644)
	os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(dir, "link.json"))
	if err := mkfifo(filepath.Join(dir, "pipe.json")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprintf("i%d.ts", i))
			os.WriteFile(p, []byte(tt.imp+"\nexport default { description: \"x\", args: {}, async execute() { return JSON.stringify(s ?? two) } }\n"), 0o644)
			_, err := bundle(p)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestConsoleGoesToTheHostLogAndBunIsAbsent(t *testing.T) {
	t.Parallel()
	dir := project(t)
	p := filepath.Join(dir, "misc.ts")
	os.WriteFile(p, []byte(`import { tool } from "@opencode-ai/plugin"
export const log = tool({ description: "logs", args: {}, async execute() { console.warn("careful", { n: 1 }); return "ok" } })
export const bun = tool({ description: "bun", args: {}, async execute() { return await Bun.file("x").text() } })
`), 0o644)
	f, err := Load(context.Background(), p, LoadOptions{Runtime: testRuntime(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close(context.Background())
	tools := map[string]*Tool{}
	for _, tl := range f.Tools(nil) {
		tools[tl.ID()] = tl
	}
	var buf strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return buf.Write(b) }), nil))
	if _, err := run(t, tools["misc_log"], `{}`, runtime.NewContext(runtime.Context{Logger: logger}, nil, nil)); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, `careful {\"n\":1}`) {
		t.Fatalf("log = %s", got)
	}
	_, err = run(t, tools["misc_bun"], `{}`, nil)
	if err == nil || !strings.Contains(err.Error(), "Bun.file is not available") || !strings.Contains(err.Error(), "allowed_paths") {
		t.Fatalf("err = %v", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func TestOutputOverMaxOutputMBIsRefused(t *testing.T) {
	t.Parallel()
	dir := project(t)
	p := filepath.Join(dir, "big.ts")
	os.WriteFile(p, []byte(`import { tool } from "@opencode-ai/plugin"
export default tool({ description: "big", args: {}, async execute() { return "x".repeat(2 * 1024 * 1024) } })
`), 0o644)
	f, err := Load(context.Background(), p, LoadOptions{Runtime: testRuntime(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close(context.Background())
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{"big": {MaxOutputMB: 1}}}
	_, err = run(t, f.Tools(nil)[0], `{}`, runtime.NewContext(runtime.Context{Config: cfg}, nil, nil))
	if !errors.Is(err, wasm.ErrOutputLimit) || !strings.Contains(err.Error(), "wasm.big.max_output_mb") {
		t.Fatalf("err = %v", err)
	}
}

func TestHostileExecutesFailCleanly(t *testing.T) {
	t.Parallel()
	dir := project(t)
	p := filepath.Join(dir, "hostile.ts")
	os.WriteFile(p, []byte(`import { tool } from "@opencode-ai/plugin"
const t = (execute: () => Promise<unknown>) => tool({ description: "x", args: {}, execute })
export const recurse = t(async () => { const f = (n: number): number => f(n + 1) + 1; return String(f(0)) })
export const str = t(async () => { throw "a plain string" })
export const never = t(() => new Promise(() => {}))
export const proto = t(async () => { (Object.prototype as any).polluted = 1; return "done" })
export const check = t(async () => String(({} as any).polluted))
export const bigint = t(async () => ({ output: "x", metadata: { n: 1n } }))
`), 0o644)
	f, err := Load(context.Background(), p, LoadOptions{Runtime: testRuntime(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close(context.Background())
	tests := []struct{ export, want string }{
		{"recurse", "stack"},
		{"str", "a plain string"},
		{"never", "never finished"},
		{"proto", "done"},
		{"check", "undefined"}, // the pollution did not survive into the next call
		{"bigint", "BigInt"},
	}
	for _, tt := range tests {
		t.Run(tt.export, func(t *testing.T) {
			out, err := f.Call(context.Background(), tt.export, nil, CallInfo{}, Limits{Timeout: time.Minute}, nil)
			got := ""
			if out != nil {
				got = out.Output
			}
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJSToolsPassTheConformanceSuite(t *testing.T) {
	t.Parallel()
	for _, tl := range loadFixture(t, "greet.ts").Tools(nil) {
		t.Run(tl.ID(), func(t *testing.T) { tooltest.Run(t, tl) })
	}
}

func TestProcessEnvHoldsWhatTheWasmConfigGrants(t *testing.T) {
	t.Setenv("TOOLHOST_JS_TEST_TOKEN", "s3cret")
	t.Setenv("TOOLHOST_JS_TEST_OTHER", "not granted")
	dir := project(t)
	p := filepath.Join(dir, "env.ts")
	os.WriteFile(p, []byte(`import { tool } from "@opencode-ai/plugin"
export const read = tool({ description: "env", args: {}, async execute() {
  return JSON.stringify({ token: process.env.TOOLHOST_JS_TEST_TOKEN ?? null, other: process.env.TOOLHOST_JS_TEST_OTHER ?? null,
    node: typeof process.versions, keys: Object.keys(process.env) })
} })
export const leak = tool({ description: "set env", args: {}, async execute() {
  try { process.env.INJECTED = "x" } catch (e) {}
  return String(process.env.INJECTED ?? "absent")
} })
export const exit = tool({ description: "exit", args: {}, async execute() { process.exit(1); return "still here" } })
`), 0o644)
	f, err := Load(context.Background(), p, LoadOptions{Runtime: testRuntime(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close(context.Background())
	tools := map[string]*Tool{}
	for _, tl := range f.Tools(nil) {
		tools[tl.ID()] = tl
	}
	granted := &config.Config{Wasm: map[string]config.WasmConfig{"env_read": {Env: []string{"TOOLHOST_JS_TEST_TOKEN", "TOOLHOST_JS_TEST_UNSET"}}}}
	res, err := run(t, tools["env_read"], `{}`, runtime.NewContext(runtime.Context{Config: granted}, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"token":"s3cret","other":null,"node":"undefined","keys":["TOOLHOST_JS_TEST_TOKEN"]}`; res.Output != want {
		t.Errorf("granted call: %s, want %s", res.Output, want)
	}
	// Another call without the grant, on an instance from the same
	// snapshot: nothing of the first call's environment is left.
	res, err = run(t, tools["env_read"], `{}`, runtime.NewContext(runtime.Context{Config: &config.Config{}}, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"token":null,"other":null,"node":"undefined","keys":[]}`; res.Output != want {
		t.Errorf("call without the grant: %s, want %s", res.Output, want)
	}
	if res, err := run(t, tools["env_leak"], `{}`, nil); err != nil || res.Output != "absent" {
		t.Errorf("process.env is writable: %q, %v", res.Output, err)
	}
	_, err = run(t, tools["env_exit"], `{}`, nil)
	if err == nil || !strings.Contains(err.Error(), "process.exit is not available") {
		t.Errorf("process.exit: %v, want an error naming it", err)
	}
}
