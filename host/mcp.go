package host

import (
	"context"

	"github.com/toolhost/toolhost/mcp/client"
	"github.com/toolhost/toolhost/runtime"
)

// addMCP starts the MCP servers of the config in parallel and adds their
// tools as <server>_<tool> (source mcp). A server that fails to start or to
// list its tools within its timeout is reported in LoadErrors and skipped;
// one that exits later is restarted by its next call. The servers stop on
// Close.
func (h *Host) addMCP(ctx context.Context, opts Options) {
	if len(h.Config.MCP) == 0 {
		return
	}
	m := client.New(h.Config.MCP, client.Options{Directory: opts.Directory, Logger: opts.Logger})
	m.Start(ctx)
	for _, st := range m.Status() {
		if st.State == client.StateFailed {
			h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourceMCP, File: st.Name, Reason: st.Error})
		}
	}
	h.Registry.Add(runtime.SourceMCP, m.Tools()...)
	h.life.onClose("mcp servers", func(context.Context) error { return m.Close() })
}
