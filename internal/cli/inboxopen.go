package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/runtime"
)

// InboxOpenOptions are the flags of `toolhost inbox`.
type InboxOpenOptions struct {
	// Print only prints the URL, without opening a browser.
	Print bool
	// Open opens a URL in the browser; tests replace it. Nil: the
	// system's opener (xdg-open, open, rundll32).
	Open func(url string) error
}

// NewCmdInbox is `toolhost inbox`: the permission inbox of this project,
// opened in the browser signed in.
func NewCmdInbox(g *Globals, runF func(context.Context, *Globals, *InboxOpenOptions) error) *cobra.Command {
	opts := &InboxOpenOptions{}
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "Open this project's permission inbox in the browser",
		Long: `Open the permission inbox that toolhost mcp or toolhost run --ask-fallback
inbox serves for this project, signed in with the inbox token, and print its
URL. With several (one per toolhost process), the one with questions
waiting opens. The inbox must be running: start the MCP server with
--ask-fallback inbox, or "server": {"ask_fallback": "inbox"} in toolhost.json.`,
		Example: `  toolhost inbox
  toolhost inbox --print     # only print the URL`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runInboxOpen(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Print, "print", false, "only print the URL; do not open a browser")
	return cmd
}

// errNoInbox is the refusal when no inbox runs for the project.
var errNoInbox = errors.New("no permission inbox is running for this project")

func runInboxOpen(ctx context.Context, g *Globals, opts *InboxOpenOptions) error {
	project, err := g.projectDir()
	if err != nil {
		return err
	}
	dataDir := runtime.DefaultDataDir()
	recs, err := inbox.Published(dataDir, project)
	if err != nil {
		return err
	}
	userToken, tokenErr := inbox.ReadUserToken(dataDir)
	// The inboxes still running, the one with the most questions first.
	type live struct {
		url     string
		waiting int
	}
	var found []live
	for _, r := range recs {
		if !inbox.Live(r) {
			inbox.Forget(dataDir, r)
			continue
		}
		token := os.Getenv(inbox.TokenEnv)
		if r.UserToken {
			token = userToken
		}
		if token == "" {
			// Started with a token of its own that this process does
			// not have: printed without one.
			fmt.Fprintf(g.Streams.Out, "%s (open it with ?token=<the token given to --inbox-token>)\n", r.URL)
			continue
		}
		n, err := inbox.Waiting(ctx, r.URL, token)
		if err != nil {
			g.logger().Debug("inbox record skipped", "url", r.URL, "err", err)
			continue
		}
		l := live{url: r.URL + "?token=" + token, waiting: n}
		if len(found) > 0 && n > found[0].waiting {
			found = append([]live{l}, found...)
		} else {
			found = append(found, l)
		}
	}
	if len(found) == 0 {
		if r := tokenErr; r != nil && len(recs) > 0 {
			return fmt.Errorf("%w that this user can open (%v)", errNoInbox, r)
		}
		return fmt.Errorf("%w (%s): start it with toolhost mcp --ask-fallback inbox, or \"server\": {\"ask_fallback\": \"inbox\"} in toolhost.json; it listens on http://127.0.0.1:%d/", errNoInbox, project, inbox.StablePort(project))
	}
	for _, l := range found {
		suffix := ""
		if l.waiting > 0 {
			suffix = fmt.Sprintf("  (%d waiting)", l.waiting)
		}
		fmt.Fprintf(g.Streams.Out, "%s%s\n", l.url, suffix)
	}
	if opts.Print {
		return nil
	}
	open := opts.Open
	if open == nil {
		open = openBrowser
	}
	if err := open(found[0].url); err != nil {
		return fmt.Errorf("open the inbox in a browser: %w; open the URL above yourself", err)
	}
	return nil
}

// openBrowser opens url with the system's opener, never through a shell.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch goruntime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
