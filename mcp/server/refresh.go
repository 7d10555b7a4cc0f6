package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
)

// toolList keeps the server's tools in step with the registry. The go-sdk
// server holds its own copy of the tool list; every change of the registry
// (a watching host adding or removing a wasm tool, a tool registered at run
// time) lists the agent's tools again and adds, replaces or removes what
// differs in that copy. The go-sdk then sends
// notifications/tools/list_changed to every session (debounced, so a
// module with many tools gives one notification), and clients list again.
type toolList struct {
	mu     sync.Mutex        // serialises refreshes
	listed map[string][]byte // tool id → what was offered, as JSON
	cancel func()            // ends the registry subscription
	once   sync.Once         // Close
}

// Refresh lists the agent's tools and brings the offered list up to date:
// new tools are added, changed ones replaced, vanished ones removed, and
// clients are told when anything differs. A server refreshes by itself on
// every registry change; call Refresh only after changing something the
// registry does not announce (a reloaded config, say).
func (s *Server) Refresh(ctx context.Context) error {
	s.list.mu.Lock()
	defer s.list.mu.Unlock()
	tools, err := s.reg.Tools(ctx, s.opts.Model, s.opts.Agent)
	if err != nil {
		return fmt.Errorf("refresh mcp tools: %w", err)
	}
	if s.list.listed == nil {
		s.list.listed = map[string][]byte{}
	}
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		seen[t.ID] = true
		tool := &sdk.Tool{
			Name:        t.ID,
			Description: t.Description,
			InputSchema: t.Parameters,
			Annotations: annotations(t),
		}
		sig, err := json.Marshal(tool)
		if err != nil {
			s.log.Warn("tool left out of the MCP list: cannot encode it", "tool", t.ID, "err", err)
			continue
		}
		if old, ok := s.list.listed[t.ID]; ok && bytes.Equal(old, sig) {
			continue
		}
		if err := addTool(s.sdk, tool, s.handler(t.ID)); err != nil {
			s.log.Warn("tool left out of the MCP list", "tool", t.ID, "err", err)
			delete(s.list.listed, t.ID)
			s.sdk.RemoveTools(t.ID)
			continue
		}
		s.list.listed[t.ID] = sig
	}
	var gone []string
	for id := range s.list.listed {
		if !seen[id] {
			gone = append(gone, id)
			delete(s.list.listed, id)
		}
	}
	if len(gone) > 0 {
		s.sdk.RemoveTools(gone...)
	}
	return nil
}

// addTool is sdk.Server.AddTool, which panics on a schema that is not a
// JSON object: a wasm or plugin tool may declare anything, and one bad
// tool must not take the server down.
func addTool(srv *sdk.Server, t *sdk.Tool, h sdk.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v; fix the tool's parameter schema (it must be a JSON object schema)", r)
		}
	}()
	srv.AddTool(t, h)
	return nil
}

// follow subscribes the server to the registry's changes.
func (s *Server) follow() {
	s.list.cancel = s.reg.Subscribe(func() {
		if err := s.Refresh(context.Background()); err != nil {
			s.log.Warn("mcp tool list not refreshed; clients keep the previous one", "err", err)
		}
	})
}

// Close stops following the registry. Sessions end with their transports
// (ServeStdio and ListenAndServe return when their context ends). Calling
// Close twice is harmless.
func (s *Server) Close() error {
	s.list.once.Do(func() {
		if s.list.cancel != nil {
			s.list.cancel()
		}
		if s.relay != nil {
			s.relay.stop()
		}
		if s.proj != nil {
			s.proj.close()
		}
	})
	return nil
}
