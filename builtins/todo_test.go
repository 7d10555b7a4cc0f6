package builtins

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

func invokeTool(t *testing.T, tool runtime.Tool, tc *runtime.Context, args any) (runtime.Result, error) {
	t.Helper()
	def, err := tool.Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{Name: "build"}})
	if err != nil {
		t.Fatalf("init %s: %v", tool.ID(), err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return def.Execute(context.Background(), raw, tc)
}

func allowAll(context.Context, permission.Request) error { return nil }

func todoContext(store session.Store, sessionID string) *runtime.Context {
	return runtime.NewContext(runtime.Context{SessionID: sessionID, Store: store}, nil, allowAll)
}

func decodeTodos(t *testing.T, out string) []todoItem {
	t.Helper()
	var todos []todoItem
	if err := json.Unmarshal([]byte(out), &todos); err != nil {
		t.Fatalf("output is not a JSON todo list: %v\n%s", err, out)
	}
	return todos
}

func TestTodoRoundTrip(t *testing.T) {
	t.Parallel()
	list := []todoItem{
		{Content: "write the parser", Status: todoCompleted, Priority: "high"},
		{ID: "tests", Content: "test it", Status: todoInProgress, Priority: "medium"},
		{Content: "document it", Status: todoPending, Priority: "low"},
		{Content: "drop the old one", Status: todoCancelled, Priority: "low"},
	}
	tests := []struct {
		name  string
		store func(t *testing.T) (write, read session.Store)
	}{
		{"through the session store, surviving a reopen", func(t *testing.T) (session.Store, session.Store) {
			path := filepath.Join(t.TempDir(), "sessions.db")
			w, err := session.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := session.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			return w, r
		}},
		{"in memory when the host has no store", func(*testing.T) (session.Store, session.Store) {
			m := session.NewMemory()
			return m, m
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws, rs := tt.store(t)
			sid := "todo-" + t.Name()
			res, err := invokeTool(t, TodoWrite(), todoContext(ws, sid), todoWriteParams{Todos: list})
			if err != nil {
				t.Fatal(err)
			}
			if res.Title != "3 todos" {
				t.Errorf("title %q, want %q (completed items are not counted)", res.Title, "3 todos")
			}
			written := decodeTodos(t, res.Output)
			ids := []string{written[0].ID, written[1].ID, written[2].ID, written[3].ID}
			if strings.Join(ids, ",") != "1,tests,2,3" {
				t.Errorf("ids %q, want missing ones numbered around the given one", ids)
			}

			got, err := invokeTool(t, TodoRead(), todoContext(rs, sid), todoReadParams{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Output != res.Output || got.Title != res.Title {
				t.Errorf("read back\n%s\nwant\n%s", got.Output, res.Output)
			}

			other, err := invokeTool(t, TodoRead(), todoContext(rs, sid+"-other"), todoReadParams{})
			if err != nil {
				t.Fatal(err)
			}
			if other.Output != "[]" || other.Title != "0 todos" {
				t.Errorf("another session sees %q (%s), want an empty list", other.Output, other.Title)
			}

			// A second write replaces the list.
			if _, err := invokeTool(t, TodoWrite(), todoContext(ws, sid), todoWriteParams{Todos: list[:1]}); err != nil {
				t.Fatal(err)
			}
			got, err = invokeTool(t, TodoRead(), todoContext(rs, sid), todoReadParams{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(decodeTodos(t, got.Output)); n != 1 {
				t.Errorf("after replacing, read %d todos, want 1", n)
			}
		})
	}
}

func TestTodoWriteRejectsInvalidItems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		todo []todoItem
		want string
	}{
		{"an unknown status", []todoItem{{Content: "x", Status: "done", Priority: "high"}}, `status "done"`},
		{"an unknown priority", []todoItem{{Content: "x", Status: todoPending, Priority: "urgent"}}, `priority "urgent"`},
		{"empty content", []todoItem{{Status: todoPending, Priority: "low"}}, "content is empty"},
		{"a repeated id", []todoItem{{ID: "a", Content: "x", Status: todoPending, Priority: "low"}, {ID: "a", Content: "y", Status: todoPending, Priority: "low"}}, `id "a" is used twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sid := "invalid-" + t.Name()
			store := session.NewMemory()
			_, err := invokeTool(t, TodoWrite(), todoContext(store, sid), todoWriteParams{Todos: tt.todo})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one mentioning %s", err, tt.want)
			}
			if kvs, err := store.List(t.Context(), sid, todoNamespace); err != nil || len(kvs) != 0 {
				t.Errorf("an invalid list was saved: %v %v", kvs, err)
			}
		})
	}
}

func TestTodoToolsAskTheirOwnPermission(t *testing.T) {
	t.Parallel()
	var asked []string
	deny := func(_ context.Context, req permission.Request) error {
		asked = append(asked, req.Permission+" "+strings.Join(req.Patterns, ","))
		return &permission.DeniedError{Permission: req.Permission, Pattern: "*"}
	}
	tc := runtime.NewContext(runtime.Context{SessionID: "todo-denied"}, nil, deny)
	if _, err := invokeTool(t, TodoWrite(), tc, todoWriteParams{Todos: []todoItem{{Content: "x", Status: todoPending, Priority: "low"}}}); permission.Kind(err) != "denied" {
		t.Errorf("todowrite error %v, want the denial unchanged", err)
	}
	if _, err := invokeTool(t, TodoRead(), tc, todoReadParams{}); permission.Kind(err) != "denied" {
		t.Errorf("todoread error %v, want the denial unchanged", err)
	}
	if strings.Join(asked, ";") != "todowrite *;todoread *" {
		t.Errorf("asked %q", asked)
	}
	if kvs, err := tc.Store.List(t.Context(), "todo-denied", todoNamespace); err != nil || len(kvs) != 0 {
		t.Errorf("a denied write was saved: %v %v", kvs, err)
	}
}

func TestTodoCallsWithoutASessionShareTheDefaultList(t *testing.T) {
	t.Parallel()
	store := session.NewMemory()
	list := []todoItem{{Content: "x", Status: todoPending, Priority: "low"}}
	if _, err := invokeTool(t, TodoWrite(), todoContext(store, ""), todoWriteParams{Todos: list}); err != nil {
		t.Fatal(err)
	}
	got, err := invokeTool(t, TodoRead(), todoContext(store, ""), todoReadParams{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(decodeTodos(t, got.Output)); n != 1 {
		t.Errorf("a session-less read sees %d todos, want the 1 written", n)
	}
	if kvs, _ := store.List(t.Context(), "default", todoNamespace); len(kvs) != 1 {
		t.Errorf("the list is not kept under session \"default\": %v", kvs)
	}
}

func TestStateToolsRefuseAContextWithoutAStore(t *testing.T) {
	t.Parallel()
	tc := &runtime.Context{SessionID: "s"} // built by hand, not by NewContext
	for name, err := range map[string]error{
		"saveTodos":   saveTodos(t.Context(), tc, nil),
		"loadTodos":   func() error { _, err := loadTodos(t.Context(), tc); return err }(),
		"recordRead":  recordRead(t.Context(), tc, "todo_test.go"),
		"lookupStamp": func() error { _, _, err := lookupStamp(t.Context(), tc, "todo_test.go"); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "no session store") {
			t.Errorf("%s: %v, want an error naming the missing store", name, err)
		}
	}
}

func TestTodoSchemaListsTheStatuses(t *testing.T) {
	t.Parallel()
	def, err := TodoWrite().Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"in_progress"`, `"cancelled"`, `"medium"`, `"todos"`} {
		if !strings.Contains(string(def.Parameters), want) {
			t.Errorf("schema lacks %s: %s", want, def.Parameters)
		}
	}
}
