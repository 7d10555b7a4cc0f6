package config

import (
	"os"
	"path/filepath"
	"strings"
)

// HostPaths is AllowedPaths with each host path absolute and clean:
// relative ones resolve against worktree (when set). The "ro:" prefix is
// kept. Nil when nothing is allowed.
func (wc WasmConfig) HostPaths(worktree string) map[string]string {
	if len(wc.AllowedPaths) == 0 {
		return nil
	}
	out := make(map[string]string, len(wc.AllowedPaths))
	for host, guest := range wc.AllowedPaths {
		prefix := ""
		if h, ok := strings.CutPrefix(host, "ro:"); ok {
			prefix, host = "ro:", h
		}
		if !filepath.IsAbs(host) && worktree != "" {
			host = filepath.Join(worktree, host)
		}
		out[prefix+filepath.Clean(host)] = guest
	}
	return out
}

// EnvValues are the variables Env names that are set in toolhost's
// environment, with their values. Nil when none is.
func (wc WasmConfig) EnvValues() map[string]string {
	var out map[string]string
	for _, name := range wc.Env {
		if v, ok := os.LookupEnv(name); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = v
		}
	}
	return out
}
