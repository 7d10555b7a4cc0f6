package builtins

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// The helpers of the glob, grep and list tools' tests; the search engine
// they share (internal/engines/search) has its own tests.

// setMtime sets a file's modification time to base plus offset seconds.
func setMtime(t *testing.T, path string, offset int) {
	t.Helper()
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(offset) * time.Second)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

// searchAsks records the permission requests of a test call.
type searchAsks struct {
	mu   sync.Mutex
	reqs []permission.Request
	deny string // a permission to reject
}

func (a *searchAsks) ask(_ context.Context, r permission.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, r)
	if r.Permission == a.deny {
		return &permission.RejectedError{Permission: r.Permission}
	}
	return nil
}

func (a *searchAsks) find(perm string) *permission.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range a.reqs {
		if a.reqs[i].Permission == perm {
			return &a.reqs[i]
		}
	}
	return nil
}

// callSearchTool runs tool with args in a project rooted at dir.
func callSearchTool(t *testing.T, tool runtime.Tool, dir string, args any, asks *searchAsks) (runtime.Result, error) {
	t.Helper()
	def, err := tool.Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{}})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	if asks == nil {
		asks = &searchAsks{}
	}
	tc := runtime.NewContext(runtime.Context{Directory: dir, Worktree: dir, SessionID: "s"}, nil, asks.ask)
	return def.Execute(context.Background(), raw, tc)
}
