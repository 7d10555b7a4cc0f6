package builtins

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// The todo tools' ids; each is also the permission it asks (pattern "*").
const (
	todoWriteToolName = "todowrite"
	todoReadToolName  = "todoread"
)

// todoNamespace and todoKey locate a session's list in the session store.
const (
	todoNamespace = "todo"
	todoKey       = "list"
)

//go:embed todowrite.txt
var todoWriteDescription string

//go:embed todoread.txt
var todoReadDescription string

// todoItem statuses.
const (
	todoPending    = "pending"
	todoInProgress = "in_progress"
	todoCompleted  = "completed"
	todoCancelled  = "cancelled"
)

// todoItem is one item of a session's todo list.
type todoItem struct {
	// ID identifies the item across updates; the tool numbers items that
	// come without one.
	ID       string `json:"id,omitempty" jsonschema_description:"Unique identifier of the todo item; optional, assigned when missing"`
	Content  string `json:"content" jsonschema_description:"Brief description of the task"`
	Status   string `json:"status" jsonschema:"enum=pending,enum=in_progress,enum=completed,enum=cancelled" jsonschema_description:"Current status of the task: pending, in_progress, completed, cancelled"`
	Priority string `json:"priority" jsonschema:"enum=high,enum=medium,enum=low" jsonschema_description:"Priority level of the task: high, medium, low"`
}

// todoWriteParams are the todowrite tool's arguments.
type todoWriteParams struct {
	Todos []todoItem `json:"todos" jsonschema_description:"The updated todo list"`
}

// todoReadParams are the todoread tool's arguments: none.
type todoReadParams struct{}

// TodoWrite returns the todowrite tool: it replaces the session's todo list
// with the one given and returns it. The list lives in the call's session
// store (namespace "todo"; calls without a session id share session
// "default"). Result metadata: todos.
func TodoWrite() runtime.Tool {
	return runtime.Declare(runtime.Define(todoWriteToolName, todoWriteDescription, func(ctx context.Context, p todoWriteParams, tc *runtime.Context) (runtime.Result, error) {
		todos, err := normalizeTodos(p.Todos)
		if err != nil {
			return runtime.Result{}, err
		}
		if err := tc.Ask(ctx, permission.Request{Permission: todoWriteToolName, Patterns: []string{"*"}, Always: []string{"*"}}); err != nil {
			return runtime.Result{}, err
		}
		if err := saveTodos(ctx, tc, todos); err != nil {
			return runtime.Result{}, err
		}
		return todoResult(todos)
	}), todoWriteTraits)
}

// todoWriteTraits: asks "todowrite" itself; changes only the session's list.
var todoWriteTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{}}

// TodoRead returns the todoread tool: the session's todo list as the last
// todowrite left it, an empty list when there is none. Result metadata: todos.
func TodoRead() runtime.Tool {
	return runtime.Declare(runtime.Define(todoReadToolName, todoReadDescription, func(ctx context.Context, _ todoReadParams, tc *runtime.Context) (runtime.Result, error) {
		if err := tc.Ask(ctx, permission.Request{Permission: todoReadToolName, Patterns: []string{"*"}, Always: []string{"*"}}); err != nil {
			return runtime.Result{}, err
		}
		todos, err := loadTodos(ctx, tc)
		if err != nil {
			return runtime.Result{}, err
		}
		return todoResult(todos)
	}), todoReadTraits)
}

// todoReadTraits: asks "todoread" itself; changes nothing.
var todoReadTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{ReadOnly: true, Idempotent: true}}

// normalizeTodos checks each item and numbers those without an id. The
// wrapper validates against the schema already; this also guards direct
// callers and duplicate ids, which a schema cannot express.
func normalizeTodos(in []todoItem) ([]todoItem, error) {
	todos := slices.Clone(in)
	if todos == nil {
		todos = []todoItem{}
	}
	seen := map[string]bool{}
	var errs []error
	for i, t := range todos {
		if t.Content == "" {
			errs = append(errs, fmt.Errorf("todos[%d]: content is empty", i))
		}
		switch t.Status {
		case todoPending, todoInProgress, todoCompleted, todoCancelled:
		default:
			errs = append(errs, fmt.Errorf("todos[%d]: status %q is not one of pending, in_progress, completed, cancelled", i, t.Status))
		}
		switch t.Priority {
		case "high", "medium", "low":
		default:
			errs = append(errs, fmt.Errorf("todos[%d]: priority %q is not one of high, medium, low", i, t.Priority))
		}
		if t.ID != "" {
			if seen[t.ID] {
				errs = append(errs, fmt.Errorf("todos[%d]: id %q is used twice", i, t.ID))
			}
			seen[t.ID] = true
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid todo list; fix these items and send the whole list again:\n%w", err)
	}
	next := 1
	for i := range todos {
		if todos[i].ID != "" {
			continue
		}
		for seen[strconv.Itoa(next)] {
			next++
		}
		todos[i].ID = strconv.Itoa(next)
		seen[todos[i].ID] = true
	}
	return todos, nil
}

func todoResult(todos []todoItem) (runtime.Result, error) {
	out, err := json.MarshalIndent(todos, "", "  ")
	if err != nil {
		return runtime.Result{}, fmt.Errorf("encode todos: %w", err)
	}
	open := 0
	for _, t := range todos {
		if t.Status != todoCompleted {
			open++
		}
	}
	return runtime.Result{
		Title:    fmt.Sprintf("%d todos", open),
		Output:   string(out),
		Metadata: map[string]any{"todos": todos},
	}, nil
}

func saveTodos(ctx context.Context, tc *runtime.Context, todos []todoItem) error {
	store, err := sessionStore(tc)
	if err != nil {
		return fmt.Errorf("save todo list of session %s: %w", tc.SessionID, err)
	}
	b, err := json.Marshal(todos)
	if err != nil {
		return fmt.Errorf("encode todos: %w", err)
	}
	if err := session.Put(ctx, store, storeSession(tc), todoNamespace, todoKey, b); err != nil {
		return fmt.Errorf("save todo list of session %s: %w", tc.SessionID, err)
	}
	return nil
}

func loadTodos(ctx context.Context, tc *runtime.Context) ([]todoItem, error) {
	store, err := sessionStore(tc)
	if err != nil {
		return nil, fmt.Errorf("load todo list of session %s: %w", tc.SessionID, err)
	}
	b, ok, err := store.Get(ctx, storeSession(tc), todoNamespace, todoKey)
	if err != nil {
		return nil, fmt.Errorf("load todo list of session %s: %w", tc.SessionID, err)
	}
	todos := []todoItem{}
	if ok {
		if err := json.Unmarshal(b, &todos); err != nil {
			return nil, fmt.Errorf("load todo list of session %s: stored list is corrupt: %w; write a new list with todowrite", tc.SessionID, err)
		}
	}
	return todos, nil
}
