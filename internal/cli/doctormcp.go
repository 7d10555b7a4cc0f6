package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/config"
)

// MCPReport is what MCP clients meet: the tool names toolhost guesses for
// them, and where the permission inbox of the project is.
type MCPReport struct {
	// ToolPrefix is "server.tool_prefix" when set: every client gets it.
	ToolPrefix *string `json:"tool_prefix,omitempty"`
	// KnownClients are the clients whose tool names are guessed, each
	// with its prefix under the key "toolhost".
	KnownClients []string `json:"known_clients"`
	// InboxURL is the project's stable inbox address; InboxesRunning the
	// URLs of its inboxes running now (toolhost inbox opens them).
	InboxURL       string   `json:"inbox_url"`
	InboxesRunning []string `json:"inboxes_running"`
	// InboxNotify is "server.inbox_notify": desktop notifications.
	InboxNotify bool `json:"inbox_notify"`
}

func mcpReport(cfg config.Server, worktree, dataDir string) MCPReport {
	r := MCPReport{
		ToolPrefix:     cfg.ToolPrefix,
		KnownClients:   server.KnownClients(),
		InboxURL:       fmt.Sprintf("http://127.0.0.1:%d/", inbox.StablePort(worktree)),
		InboxesRunning: []string{},
		InboxNotify:    cfg.NotifyInbox(),
	}
	recs, _ := inbox.Published(dataDir, worktree)
	for _, rec := range recs {
		if inbox.Live(rec) {
			r.InboxesRunning = append(r.InboxesRunning, rec.URL)
		}
	}
	return r
}

func (r MCPReport) print(w io.Writer) {
	fmt.Fprintln(w, "mcp clients")
	if r.ToolPrefix != nil {
		fmt.Fprintf(w, "  tool names: %q before every tool (\"server\": {\"tool_prefix\"})\n", *r.ToolPrefix)
	} else {
		fmt.Fprintf(w, "  tool names: guessed for %s\n", strings.Join(r.KnownClients, ", "))
		fmt.Fprintln(w, "              another client sees the plain ids; if it calls them otherwise, give its prefix: toolhost mcp --tool-prefix mcp__toolhost__ (or \"server\": {\"tool_prefix\": …})")
	}
	switch len(r.InboxesRunning) {
	case 0:
		fmt.Fprintf(w, "  inbox:      %s (not running; toolhost mcp --ask-fallback inbox serves it, toolhost inbox opens it)\n", r.InboxURL)
	default:
		fmt.Fprintf(w, "  inbox:      %s running (toolhost inbox opens it)\n", strings.Join(r.InboxesRunning, ", "))
	}
	if r.InboxNotify {
		fmt.Fprintln(w, "  notify:     a desktop notification when a question waits (\"server\": {\"inbox_notify\": false} turns it off)")
	} else {
		fmt.Fprintln(w, "  notify:     off (\"server\": {\"inbox_notify\": true} turns it on)")
	}
}
