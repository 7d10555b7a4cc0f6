package client

import (
	"context"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/source"
)

// Source is the MCP servers of a config as a tool source
// (runtime.SourceMCP): their tools as <server>_<tool>. Load starts the
// servers in parallel; a server that fails to start or to list its tools
// within its timeout is a load error and is skipped, and one that exits
// later is restarted by its next call. Close stops them.
type Source struct {
	cfg  map[string]config.MCPServer
	opts Options
	m    *Manager
}

// NewSource returns the source of the servers cfg names.
func NewSource(cfg map[string]config.MCPServer, opts Options) *Source {
	return &Source{cfg: cfg, opts: opts}
}

// SourceFor is the source a host opens: the servers env.Config names,
// local ones run in its working directory, logging to its logger.
func SourceFor(env source.Env) *Source {
	return NewSource(env.Config.MCP, Options{Directory: env.Directory, Logger: env.Logger})
}

// Kind is runtime.SourceMCP.
func (s *Source) Kind() runtime.Source { return runtime.SourceMCP }

// Load starts the servers and lists their tools.
func (s *Source) Load(ctx context.Context) (source.Loaded, error) {
	if len(s.cfg) == 0 {
		return source.Loaded{}, nil
	}
	s.m = New(s.cfg, s.opts)
	s.m.Start(ctx)
	var out source.Loaded
	for _, st := range s.m.Status() {
		if st.State == StateFailed {
			out.Errors = append(out.Errors, runtime.LoadError{Source: runtime.SourceMCP, File: st.Name, Reason: st.Error})
		}
	}
	out.Tools = s.m.Tools()
	return out, nil
}

// Close stops the servers.
func (s *Source) Close(context.Context) error {
	if s.m == nil {
		return nil
	}
	return s.m.Close()
}

var _ source.Source = (*Source)(nil)
