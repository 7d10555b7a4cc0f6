package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/runtime"
)

// Embedding toolhost: host.New assembles what the CLI would for a project
// — config, session store, built-in tools and the project's wasm, JS,
// Python, plugin and MCP tools — and Call runs one through the same chain
// of steps. Env keeps this example away from the user's own config.
func ExampleNew() {
	root, err := os.MkdirTemp("", "toolhost-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)
	project := filepath.Join(root, "project")
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	os.WriteFile(filepath.Join(project, "notes.txt"), []byte("buy milk\n"), 0o644)
	env := map[string]string{"HOME": root, "XDG_CONFIG_HOME": filepath.Join(root, "config")}

	ctx := context.Background()
	h, err := host.New(ctx, host.Options{
		Directory: project,
		Env:       func(k string) string { return env[k] },
		DataDir:   filepath.Join(root, "data"),
		CacheDir:  filepath.Join(root, "cache"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)

	tools, _ := h.Tools(ctx, "", "")
	fmt.Println("grep offered:", slices.ContainsFunc(tools, func(t runtime.ToolInfo) bool { return t.ID == "grep" }))
	res, err := h.Call(ctx, runtime.Call{Tool: "grep", Args: []byte(`{"pattern": "milk"}`), SessionID: "example"})
	fmt.Println(res.Title, err)
	// Output:
	// grep offered: true
	// milk <nil>
}
