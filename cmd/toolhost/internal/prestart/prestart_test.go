package prestart

import (
	"testing"

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
		{nil, false},
	}
	for _, tt := range tests {
		if got := callsBash(tt.args); got != tt.want {
			t.Errorf("callsBash(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
