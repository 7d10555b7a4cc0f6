package plugins

import (
	"context"
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

type change struct {
	added   []string
	removed []string
}

func TestWatchFollowsAddedReplacedAndRemovedModules(t *testing.T) {
	t.Parallel()
	dir := configDir(t, map[string]string{"kitchen.wasm": guest(t, "kitchen")})
	h := NewHost(HostOptions{CacheDir: sharedCache, PollInterval: 20 * time.Millisecond})
	t.Cleanup(func() { h.Close(context.Background()) })
	initial := discover(t, h, dir)

	changes := make(chan change, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.Watch(ctx, []string{dir}, func(added []runtime.Tool, removed []string) {
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
	next := func() change {
		t.Helper()
		select {
		case c := <-changes:
			return c
		case <-time.After(60 * time.Second):
			t.Fatal("no change reported")
			return change{}
		}
	}
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
		got := next()
		if strings.Join(got.added, ",") != strings.Join(tt.want.added, ",") || strings.Join(got.removed, ",") != strings.Join(tt.want.removed, ",") {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}

	close(release)
	if o := <-inflight; o.err != nil || o.res.Output != "did it" {
		t.Errorf("the call in flight on the replaced module: %+v, %v; want it to finish on the old version", o.res, o.err)
	}
	cancel()
	wg.Wait()
}
