package prestart

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"

	"github.com/toolhost/toolhost/internal/cli"
	"github.com/toolhost/toolhost/runtime"
)

func TestTheCacheDirectoryIsRuntimes(t *testing.T) {
	for _, env := range []map[string]string{{}, {"XDG_CACHE_HOME": "/x/cache"}, {"HOME": "/h"}} {
		get := func(k string) string { return env[k] }
		if got, want := cacheDir(get), runtime.DefaultCacheDir(get); got != want {
			t.Errorf("cacheDir(%v) = %s, runtime.DefaultCacheDir = %s", env, got, want)
		}
	}
}

func TestCallsBash(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"call", "bash", `{"command":"true"}`}, true},
		{[]string{"-C", "/src", "call", "bash"}, true},
		{[]string{"call", "--yes", "bash"}, true},
		{[]string{"call", "read", `{"filePath":"bash"}`}, false},
		{[]string{"call"}, false},
		{[]string{"tools"}, false},
		{[]string{"bash", "call"}, false},
		{[]string{"--log-level", "debug", "call", "bash"}, true},
		{[]string{"mcp", "--tool-prefix", "call", "bash"}, false},
		{[]string{"-C", "call", "tools", "bash"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := callsBash(tt.args); got != tt.want {
			t.Errorf("callsBash(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestSubcommandSkipsGlobalFlagsAndTheirValues(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"call", "read"}, "call"},
		{[]string{"-C", "/src", "--log-level=debug", "call"}, "call"},
		{[]string{"--log-format", "json", "mcp", "call"}, "mcp"},
		{[]string{"--yes"}, ""},
	}
	for _, tt := range tests {
		if got, _ := subcommand(tt.args); got != tt.want {
			t.Errorf("subcommand(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// valueFlags must name every global flag of the CLI that takes a value,
// or a value such as "call" could be taken for the subcommand.
func TestValueFlagsAreTheCLIsGlobalFlagsWithValues(t *testing.T) {
	root := cli.NewRootCmd(&cli.Globals{})
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			return
		}
		if !slices.Contains(valueFlags, "--"+f.Name) {
			t.Errorf("global flag --%s takes a value: add it to valueFlags", f.Name)
		}
		if f.Shorthand != "" && !slices.Contains(valueFlags, "-"+f.Shorthand) {
			t.Errorf("global flag -%s takes a value: add it to valueFlags", f.Shorthand)
		}
	})
}
