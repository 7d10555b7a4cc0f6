package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolhost/toolhost/plugins/pkg"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime/config"
)

// PluginReport is one plugin a host of the project would load, and what
// keeps it from loading: not locked, not in the cache, changed, or a
// config value missing or invalid (named by key, never a secret's value).
type PluginReport struct {
	Name string `json:"name,omitempty"`
	// Source is the config's reference, or the plugin folder.
	Source  string `json:"source"`
	Problem string `json:"problem,omitempty"`
}

// pluginReports checks the plugins as a host would at start, without
// compiling or running them: the packages the config lists (through the
// lock, from the cache) and the plugins of the config folders.
func pluginReports(loaded *config.Loaded, worktree, cacheDir string) []PluginReport {
	var out []PluginReport
	check := func(r PluginReport, m wasm.Manifest) PluginReport {
		r.Name = m.Name
		if err := m.CheckConfig(loaded.Config); err != nil {
			r.Problem = err.Error()
		}
		return r
	}
	if len(loaded.Config.Plugin) > 0 {
		mgr := pkg.NewManager(loaded.Config, worktree, cacheDir, nil)
		lock, err := pkg.ReadLock(mgr.LockPath)
		if err != nil {
			lock = &pkg.Lock{}
		}
		for _, ref := range loaded.Config.Plugin {
			r := PluginReport{Source: ref}
			e, ok := lock.ByRef(ref)
			if !ok {
				r.Problem = fmt.Sprintf("not in %s; run `toolhost plugin add %s`", pkg.LockFile, ref)
				out = append(out, r)
				continue
			}
			src, err := mgr.Open(*e)
			if err != nil {
				r.Name, r.Problem = e.Name, err.Error()
				out = append(out, r)
				continue
			}
			out = append(out, check(r, src.Manifest))
		}
	}
	found, errs := wasm.DiscoverBundles(loaded.Dirs)
	for _, e := range errs {
		out = append(out, PluginReport{Source: e.File, Problem: e.Reason})
	}
	for _, src := range found {
		out = append(out, check(PluginReport{Source: src.Dir}, src.Manifest))
	}
	return out
}

// printPlugins writes the plugins section of the doctor report.
func printPlugins(w io.Writer, rs []PluginReport) {
	fmt.Fprintln(w, "plugins")
	if len(rs) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, r := range rs {
		name := r.Name
		if name == "" {
			name = "?"
		}
		if r.Problem == "" {
			fmt.Fprintf(w, "  %-14s ok (%s)\n", name, r.Source)
			continue
		}
		fmt.Fprintf(w, "  %-14s not loaded (%s): %s\n", name, r.Source, strings.ReplaceAll(r.Problem, "\n", "\n  "))
	}
}
