package shellperm

import (
	"strings"
	"testing"
)

func TestCommandPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		command string
		want    string
	}{
		{"a command listed with arity one keeps its name", "touch foo.txt", "touch"},
		{"git keeps its subcommand", "git checkout main", "git checkout"},
		{"git with a flag keeps the flag, the narrower reading", "git -C sub status", "git -C"},
		{"git config keeps its key", "git config user.name Ann", "git config user.name"},
		{"npm install keeps two words", "npm install react", "npm install"},
		{"npm run keeps the script name", "npm run build --watch", "npm run build"},
		{"docker compose keeps the compose subcommand", "docker compose up web", "docker compose up"},
		{"docker alone keeps one subcommand", "docker run nginx", "docker run"},
		{"aws keeps service and operation", "aws s3 ls s3://bucket", "aws s3 ls"},
		{"python keeps its first argument", "python script.py --flag", "python script.py"},
		{"an unknown command keeps only its name", "python3 script.py", "python3"},
		{"a command shorter than its arity keeps every word", "git", "git"},
		{"npm run without a script keeps both words", "npm run", "npm run"},
		{"the longest listed prefix wins", "cargo add tokio --features full", "cargo add tokio"},
		{"a prefix is matched on whole words only", "gitx checkout main", "gitx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := strings.Join(commandPrefix(strings.Fields(tt.command)), " ")
			if got != tt.want {
				t.Errorf("commandPrefix(%q) = %q, want %q", tt.command, got, tt.want)
			}
		})
	}
}

func TestCommandPrefixOfNothingIsEmpty(t *testing.T) {
	t.Parallel()
	if got := commandPrefix(nil); len(got) != 0 {
		t.Errorf("commandPrefix(nil) = %q, want empty", got)
	}
}

func TestAlwaysPatternEndsInAWildcard(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"git checkout main":      "git checkout *",
		"npm run build":          "npm run build *",
		"docker compose up x":    "docker compose up *",
		"frobnicate --all files": "frobnicate *",
	} {
		if got := alwaysPattern(strings.Fields(cmd)); got != want {
			t.Errorf("alwaysPattern(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// The table is data; these invariants keep edits to it meaningful.
func TestArityTableIsConsistent(t *testing.T) {
	t.Parallel()
	for prefix, arity := range commandArity {
		words := strings.Fields(prefix)
		if strings.Join(words, " ") != prefix {
			t.Errorf("%q: entries are single-space separated words", prefix)
		}
		if arity < len(words) {
			t.Errorf("%q: arity %d is less than the %d words of the prefix itself", prefix, arity, len(words))
		}
		if len(words) > 1 {
			parent := strings.Join(words[:len(words)-1], " ")
			pa, ok := commandArity[parent]
			if !ok {
				t.Errorf("%q: its parent prefix %q is not listed", prefix, parent)
			} else if pa == arity {
				t.Errorf("%q: arity %d equals its parent's; the entry is redundant", prefix, arity)
			}
		}
	}
	// OpenCode's table has 145 entries; a port that loses some fails here.
	if len(commandArity) < 145 {
		t.Errorf("arity table has %d entries, want the full table (145)", len(commandArity))
	}
	for _, must := range []string{"git", "npm run", "docker compose", "kubectl rollout", "yarn dlx", "cat", "xargs"} {
		if _, ok := commandArity[must]; !ok {
			t.Errorf("arity table lacks %q", must)
		}
	}
	if !pathCommands["cat"] {
		t.Error("cat must be a path-checked command")
	}
}
