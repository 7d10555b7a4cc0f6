package wasm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// changeWait bounds the wait for one reported change. It includes loading
// the module — compiling it and calling description and schema when the
// shared cache does not know it yet, slow under -race — so it is far above
// the second a change takes to be noticed.
const changeWait = 60 * time.Second

type change struct {
	added   []string
	removed []string
}

// watching runs h.Watch on dirs until the test ends, and returns the
// changes it reports. The watcher is stopped and waited for in Cleanup, so
// a failing test never leaves it running.
func watching(t *testing.T, h *Engine, dirs ...string) func() change {
	t.Helper()
	changes := make(chan change, 10)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	go func() {
		defer wg.Done()
		h.Watch(ctx, dirs, func(added []runtime.Tool, removed []string) {
			var c change
			for _, tl := range added {
				c.added = append(c.added, tl.ID())
			}
			c.removed = append(c.removed, removed...)
			sort.Strings(c.added)
			sort.Strings(c.removed)
			changes <- c
		})
	}()
	return func() change {
		t.Helper()
		timer := time.NewTimer(changeWait)
		defer timer.Stop()
		select {
		case c := <-changes:
			return c
		case <-timer.C:
			t.Fatalf("no change reported within %s", changeWait)
			return change{}
		}
	}
}

func sameChange(a, b change) bool {
	return strings.Join(a.added, ",") == strings.Join(b.added, ",") && strings.Join(a.removed, ",") == strings.Join(b.removed, ",")
}

// watchModes are the two ways Watch notices a change: file-system events
// alone (the poll is an hour away), and polling alone (no events).
var watchModes = []struct {
	name string
	host func() *Engine
}{
	{"file-system events", func() *Engine { return NewEngine(EngineOptions{CacheDir: sharedCache, PollInterval: time.Hour}) }},
	{"polling", func() *Engine {
		h := NewEngine(EngineOptions{CacheDir: sharedCache, PollInterval: 20 * time.Millisecond})
		h.noEvents = true
		return h
	}},
}

func TestWatchFollowsAddedReplacedAndRemovedModules(t *testing.T) {
	t.Parallel()
	for _, mode := range watchModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			dir := configDir(t, map[string]string{"kitchen.wasm": guest(t, "kitchen")})
			h := mode.host()
			t.Cleanup(func() { h.Close(context.Background()) })
			initial := discover(t, h, dir)
			next := watching(t, h, dir)

			// A call in flight, blocked in ask, while its module is replaced.
			release := make(chan struct{})
			asked := make(chan struct{})
			tc := testContext(t, nil, func(ctx context.Context, req permission.Request) error {
				close(asked)
				<-release
				return nil
			})
			type outcome struct {
				res runtime.Result
				err error
			}
			inflight := make(chan outcome, 1)
			go func() {
				res, err := call(t, initial["kitchen_ask"], `{"pattern": "x"}`, tc)
				inflight <- outcome{res, err}
			}()
			<-asked
			defer func() {
				select {
				case <-release:
				default:
					close(release)
				}
			}()

			tests := []struct {
				name string
				act  func()
				want change
			}{
				{"adding a module adds its tools", func() {
					copyFile(t, guest(t, "echo"), filepath.Join(dir, "tool", "echo.wasm"))
				}, change{added: []string{"echo"}}},
				{"replacing a module swaps its tools", func() {
					tmp := filepath.Join(dir, "tool", "kitchen.wasm.tmp")
					copyFile(t, example(t, "json"), tmp)
					os.Rename(tmp, filepath.Join(dir, "tool", "kitchen.wasm"))
				}, change{added: []string{"kitchen_format", "kitchen_minify", "kitchen_query"}, removed: []string{
					"kitchen_ask", "kitchen_askhandled", "kitchen_config", "kitchen_context", "kitchen_counter", "kitchen_env",
					"kitchen_fail", "kitchen_fetch", "kitchen_progress", "kitchen_read", "kitchen_structured"}}},
				{"removing a module removes its tools", func() {
					os.Remove(filepath.Join(dir, "tool", "echo.wasm"))
				}, change{removed: []string{"echo"}}},
			}
			for _, tt := range tests {
				tt.act()
				if got := next(); !sameChange(got, tt.want) {
					t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
				}
			}

			close(release)
			if o := <-inflight; o.err != nil || o.res.Output != "did it" {
				t.Errorf("the call in flight on the replaced module: %+v, %v; want it to finish on the old version", o.res, o.err)
			}
		})
	}
}

func TestWatchSeesToolFoldersCreatedAfterItStarted(t *testing.T) {
	t.Parallel()
	echo := guest(t, "echo")
	tests := []struct {
		name   string
		folder string // relative to the project; config dir is .toolhost
	}{
		{"a tool folder in an existing config directory", "tool"},
		{"a tools folder in an existing config directory", "tools"},
		{"a tool folder and its config directory", filepath.Join("new", "tool")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			project := t.TempDir()
			cfgDir := filepath.Join(project, ".toolhost")
			if err := os.MkdirAll(cfgDir, 0o755); err != nil {
				t.Fatal(err)
			}
			dir := cfgDir
			if strings.HasPrefix(tt.folder, "new") {
				dir = filepath.Join(project, "new") // does not exist yet
			}
			// Events alone: the poll is an hour away.
			h := NewEngine(EngineOptions{CacheDir: sharedCache, PollInterval: time.Hour})
			t.Cleanup(func() { h.Close(context.Background()) })
			if tools, errs := h.Discover(context.Background(), []string{dir}); len(tools)+len(errs) != 0 {
				t.Fatalf("empty config directory gave %d tools, errors %v", len(tools), errs)
			}
			next := watching(t, h, dir)
			folder := filepath.Join(dir, filepath.Base(tt.folder))
			if err := os.MkdirAll(folder, 0o755); err != nil {
				t.Fatal(err)
			}
			// The watch on the new folder is set up when the folder's
			// creation is seen; a module copied in before then is found by
			// that same look.
			copyFile(t, echo, filepath.Join(folder, "echo.wasm"))
			if got := next(); !sameChange(got, change{added: []string{"echo"}}) {
				t.Errorf("got %+v, want echo added", got)
			}
			os.Remove(filepath.Join(folder, "echo.wasm"))
			if got := next(); !sameChange(got, change{removed: []string{"echo"}}) {
				t.Errorf("got %+v, want echo removed", got)
			}
		})
	}
}

func TestWatchSkipsBrokenModulesAndKeepsGoing(t *testing.T) {
	t.Parallel()
	dir := configDir(t, nil)
	h := NewEngine(EngineOptions{CacheDir: sharedCache, PollInterval: 20 * time.Millisecond})
	t.Cleanup(func() { h.Close(context.Background()) })
	discover(t, h, dir)
	next := watching(t, h, dir)
	wasm, err := os.ReadFile(guest(t, "echo"))
	if err != nil {
		t.Fatal(err)
	}
	broken := map[string][]byte{
		"empty.wasm":     nil,
		"text.wasm":      []byte("not wasm at all"),
		"truncated.wasm": wasm[:len(wasm)/3],
		"header.wasm":    []byte("\x00asm\x01\x00\x00\x00"),
	}
	for name, b := range broken {
		if err := os.WriteFile(filepath.Join(dir, "tool", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "tool", "folder.wasm"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, guest(t, "echo"), filepath.Join(dir, "tool", "echo.wasm"))
	// The broken files may be seen first, on their own: they add nothing,
	// so the first change reported is echo's.
	if got := next(); !sameChange(got, change{added: []string{"echo"}}) {
		t.Errorf("got %+v, want only echo added beside broken modules", got)
	}
}

func TestCloseStopsWatchersAndWaitsForCompiles(t *testing.T) {
	t.Parallel()
	dir := configDir(t, map[string]string{"echo.wasm": guest(t, "echo")})
	// A cache of its own, so the module must be compiled.
	h := NewEngine(EngineOptions{CacheDir: t.TempDir(), PollInterval: time.Hour})
	started := make(chan struct{})
	var once sync.Once
	h.compiling = func() { once.Do(func() { close(started) }) }

	watchDone := make(chan struct{})
	go func() {
		h.Watch(context.Background(), []string{dir}, func([]runtime.Tool, []string) {})
		close(watchDone)
	}()
	discovered := make(chan []runtime.LoadError, 1)
	go func() {
		_, errs := h.Discover(context.Background(), []string{dir})
		discovered <- errs
	}()
	<-started
	// Close while the module compiles: under -race this crashed inside
	// wazero's cache before Close waited for compiles.
	if err := h.Close(context.Background()); err != nil {
		t.Fatalf("close during a compile: %v", err)
	}
	select {
	case <-discovered:
	default:
		t.Error("Close returned before the discovery it raced with")
	}
	select {
	case <-watchDone:
	default:
		t.Error("Close returned with a watcher still running")
	}
	if err := h.Close(context.Background()); err != nil {
		t.Errorf("second close: %v", err)
	}
	tools, errs := h.Discover(context.Background(), []string{dir})
	if len(tools) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Reason, ErrClosed.Error()) {
		t.Errorf("discover after close: %d tools, errors %v; want the module refused as closed", len(tools), errs)
	}
}

func TestCloseGivesUpWaitingWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	h := NewEngine(EngineOptions{CacheDir: "-"})
	_, done, err := h.begin(context.Background()) // work that does not finish
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("close with work under way and an ended context = %v, want context.Canceled", err)
	}
	done()
	if err := h.Close(context.Background()); err != nil {
		t.Errorf("close once the work finished = %v", err)
	}
}
