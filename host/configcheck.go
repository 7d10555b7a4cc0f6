package host

import "github.com/toolhost/toolhost/runtime"

// UnknownConfigKeys returns the permission keys and tool switches in the
// configuration that name nothing this host knows (runtime.UnknownKey says
// where and suggests the likely name). Call it once every tool the front
// end adds (task) is registered. Tools that failed to load still count as
// known — a module jira.wasm that did not compile, an MCP server that did
// not start, a plugin that was skipped — so the one problem is reported
// once, as the load error it is (runtime.KnownWithoutTools).
func (h *Host) UnknownConfigKeys() []runtime.UnknownKey {
	return h.Registry.UnknownConfigKeys(runtime.KnownWithoutTools(h.Config, h.LoadErrors)...)
}
