package host

import (
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/runtime"
)

// UnknownConfigKeys returns the permission keys and tool switches in the
// configuration that name nothing this host knows (runtime.UnknownKey says
// where and suggests the likely name). Call it once every tool the front
// end adds (task) is registered. Tools that failed to load still count as
// known — a module jira.wasm that did not compile, an MCP server that did
// not start, a plugin that was skipped — so the one problem is reported
// once, as the load error it is.
func (h *Host) UnknownConfigKeys() []runtime.UnknownKey {
	var known []string
	for _, le := range h.LoadErrors {
		base := filepath.Base(le.File)
		base = strings.TrimSuffix(base, filepath.Ext(base))
		known = append(known, base, base+"_")
	}
	for name := range h.Config.MCP {
		known = append(known, name, name+"_")
	}
	return h.Registry.UnknownConfigKeys(known...)
}
