package builtins

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

// selfChecking are the built-ins whose Execute asks its own permission on
// every call; the registry's gate asks the tool id's permission for every
// other tool. A tool declared here that does not ask would run unchecked,
// and one that asks but is not declared would be asked twice, so the list
// is checked against the source below.
var selfChecking = []string{
	"apply_patch", "bash", "codesearch", "edit", "glob", "grep", "list", "lsp",
	"multiedit", "read", "skill", "task", "todoread", "todowrite", "webfetch",
	"websearch", "write",
}

func everyBuiltin(t *testing.T) []runtime.Tool {
	return append(All(Options{ConfigDirs: []string{t.TempDir()}}), Task(nil))
}

func TestBuiltinsDeclareWhetherTheyCheckTheirOwnPermission(t *testing.T) {
	t.Parallel()
	for _, tool := range everyBuiltin(t) {
		got := runtime.TraitsOf(tool).ChecksOwnPermission
		if want := slices.Contains(selfChecking, tool.ID()); got != want {
			t.Errorf("%s: ChecksOwnPermission = %v, want %v", tool.ID(), got, want)
		}
	}
}

// TestEveryToolThatAsksIsDeclaredSelfChecking reads the package's source:
// a tool file that calls tc.Ask (or the edit path, editFile, which asks)
// holds a self-checking tool, and a file that does not holds none.
func TestEveryToolThatAsksIsDeclaredSelfChecking(t *testing.T) {
	t.Parallel()
	// The file each built-in lives in, where its name differs from the id.
	fileOf := map[string]string{"todowrite": "todo.go", "todoread": "todo.go"}
	asks := regexp.MustCompile(`\btc\.Ask\(|\beditFile\(ctx`)
	for _, tool := range everyBuiltin(t) {
		id := tool.ID()
		file := fileOf[id]
		if file == "" {
			file = id + ".go"
		}
		src, err := os.ReadFile(filepath.Join(".", file))
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if got, want := asks.Match(src), slices.Contains(selfChecking, id); got != want {
			t.Errorf("%s: %s calls tc.Ask: %v; declared self-checking: %v", id, file, got, want)
		}
	}
}
