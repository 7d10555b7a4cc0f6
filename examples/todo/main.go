//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen

// Command todo is a toolhost wasm module keeping the project's TODO.md:
// todo_list reads it, todo_add appends an item after asking the user's
// permission to edit the file, and todo_done checks one off the same way.
//
// It needs the project granted read-write at /project:
//
//	"wasm": {"todo": {"allowed_paths": {".": "/project"}}}
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

// File is where the project appears inside the guest and the list within it.
const (
	Root = "/project"
	File = Root + "/TODO.md"
	// Display is the path the user sees in the permission prompt.
	Display = "TODO.md"
)

type ListArgs struct{}

type AddArgs struct {
	Item string `json:"item" jsonschema:"description=The task to add\\, one line"`
}

type DoneArgs struct {
	Number int `json:"number" jsonschema:"description=The item's number as todo_list shows it (1-based),minimum=1"`
}

var _ = tool.Define("list", "List the open and done items of the project's TODO.md, numbered.",
	func(ctx *tool.Context, _ ListArgs) (tool.Result, error) {
		items, err := read()
		if err != nil {
			return tool.Result{}, err
		}
		if len(items) == 0 {
			return tool.Text("TODO.md has no items."), nil
		}
		var b strings.Builder
		open := 0
		for i, it := range items {
			fmt.Fprintf(&b, "%d. %s\n", i+1, it)
			if strings.HasPrefix(it, "[ ]") {
				open++
			}
		}
		return tool.Result{Output: b.String(), Title: fmt.Sprintf("%d open of %d", open, len(items))}, nil
	})

var _ = tool.Define("add", "Add an item to the project's TODO.md. Asks the user's permission to edit the file first.",
	func(ctx *tool.Context, a AddArgs) (tool.Result, error) {
		item := strings.TrimSpace(strings.ReplaceAll(a.Item, "\n", " "))
		if item == "" {
			return tool.Result{}, errors.New("item is empty; say what the task is")
		}
		items, err := read()
		if err != nil {
			return tool.Result{}, err
		}
		if err := askEdit(ctx, "add: "+item); err != nil {
			return tool.Result{}, err // denied or rejected: the file is untouched
		}
		items = append(items, "[ ] "+item)
		if err := write(items); err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Output: fmt.Sprintf("Added item %d: %s", len(items), item), Title: "added"}, nil
	})

var _ = tool.Define("done", "Mark an item of the project's TODO.md as done. Asks the user's permission to edit the file first.",
	func(ctx *tool.Context, a DoneArgs) (tool.Result, error) {
		items, err := read()
		if err != nil {
			return tool.Result{}, err
		}
		if a.Number < 1 || a.Number > len(items) {
			return tool.Result{}, fmt.Errorf("there is no item %d; TODO.md has %d items (see todo_list)", a.Number, len(items))
		}
		it := items[a.Number-1]
		if strings.HasPrefix(it, "[x]") {
			return tool.Text(fmt.Sprintf("Item %d was already done.", a.Number)), nil
		}
		if err := askEdit(ctx, fmt.Sprintf("done: %s", strings.TrimPrefix(it, "[ ] "))); err != nil {
			return tool.Result{}, err
		}
		items[a.Number-1] = "[x]" + strings.TrimPrefix(it, "[ ]")
		if err := write(items); err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Output: fmt.Sprintf("Marked item %d done.", a.Number), Title: "done"}, nil
	})

// askEdit asks for the same "edit" permission the built-in edit tool
// uses, so the user's rules for TODO.md apply unchanged.
func askEdit(ctx *tool.Context, change string) error {
	return ctx.Ask(tool.AskRequest{
		Permission: "edit",
		Patterns:   []string{Display},
		Always:     []string{Display},
		Metadata:   map[string]any{"filepath": Display, "change": change},
	})
}

// read returns the checklist items of TODO.md ("[ ] …" and "[x] …" after
// the list marker); a missing file has none.
func read() ([]string, error) {
	b, err := os.ReadFile(File)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(Root); serr != nil {
			return nil, fmt.Errorf("the project is not mounted at %s; grant it with \"allowed_paths\": {\".\": %q} in the todo tool's config", Root, Root)
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", Display, err)
	}
	var items []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "- "); ok && (strings.HasPrefix(rest, "[ ]") || strings.HasPrefix(rest, "[x]")) {
			items = append(items, rest)
		}
	}
	return items, nil
}

func write(items []string) error {
	var b strings.Builder
	b.WriteString("# TODO\n\n")
	for _, it := range items {
		b.WriteString("- " + it + "\n")
	}
	if err := os.WriteFile(File, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w (is the project granted read-write, without ro:?)", Display, err)
	}
	return nil
}

func main() {}
