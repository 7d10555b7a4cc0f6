package cli

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// InboxOptions are the flags of the permission inbox, which `toolhost
// mcp` and `toolhost run` serve with --ask-fallback inbox.
type InboxOptions struct {
	// Addr is where the page is served (--inbox).
	Addr string
	// Token is required on every request when set (--inbox-token, else
	// $TOOLHOST_INBOX_TOKEN); needed beyond loopback.
	Token string
	// Timeout is how long a question waits for an answer.
	Timeout time.Duration
}

// The inbox's default address is "": 127.0.0.1 at the project's stable
// port (inbox.StablePort), so its URL stays the same from one start to the
// next and `toolhost inbox` finds it.

func addInboxFlags(fs *pflag.FlagSet, o *InboxOptions) {
	fs.StringVar(&o.Addr, "inbox", "", fmt.Sprintf("with --ask-fallback inbox: serve the permission inbox on `host:port` (default: 127.0.0.1 at the project's own port in %d-%d; `toolhost inbox` opens it)", inbox.PortBase, inbox.PortBase+inbox.PortSpan-1))
	fs.StringVar(&o.Token, "inbox-token", "", "with --ask-fallback inbox: bearer `token` the inbox requires (default $"+inbox.TokenEnv+", else the user's own, kept in the data directory; needed beyond loopback)")
	fs.DurationVar(&o.Timeout, "inbox-timeout", inbox.DefaultTimeout, "with --ask-fallback inbox: how long a call waits for an answer before it is refused")
}

// check validates the flags before anything starts.
func (o *InboxOptions) check() error {
	if o.Token == "" {
		o.Token = os.Getenv(inbox.TokenEnv)
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--inbox-timeout %s: must be positive, e.g. 10m", o.Timeout)
	}
	if o.Addr == "" {
		return nil // loopback
	}
	return inbox.CheckBind(o.Addr, o.Token)
}

// projectDir is the project the command serves: the worktree of --dir or
// the working directory.
func (g *Globals) projectDir() (string, error) {
	dir, err := filepath.Abs(cmp.Or(g.Dir, "."))
	if err != nil {
		return "", fmt.Errorf("working directory %s: %w", g.Dir, err)
	}
	return config.FindWorktree(dir), nil
}

// startInbox listens on o.Addr (default: the project's stable address),
// publishes the address for `toolhost inbox`, prints the page's URL on
// stderr and serves the inbox until ctx ends. Attach the registry once the
// host is built. stop ends the server and waits for it.
func startInbox(ctx context.Context, g *Globals, o InboxOptions, agent string) (ib *inbox.Inbox, stop func(), err error) {
	log := g.logger()
	project, err := g.projectDir()
	if err != nil {
		return nil, nil, err
	}
	var ln net.Listener
	if o.Addr == "" {
		ln, err = inbox.ListenStable("127.0.0.1", project)
	} else {
		ln, err = net.Listen("tcp", o.Addr)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("permission inbox: listen on %s: %w; pick another address with --inbox", cmp.Or(o.Addr, "127.0.0.1"), err)
	}
	// Loopback keeps other machines out, not the processes of this one —
	// among them the commands the model runs through bash, which could
	// otherwise answer their own questions or trust the project. Without
	// a token given, the inbox takes the user's, kept in the data
	// directory where the bash sandbox cannot read it (not the environment
	// or the command line, which /proc shows); failing that, one of its
	// own that only the printed URL holds.
	dataDir := runtime.DefaultDataDir()
	userToken, made := false, o.Token == ""
	if made {
		if tok, err := inbox.UserToken(dataDir); err == nil {
			o.Token, userToken = tok, true
		} else {
			log.Warn("permission inbox: the user's token is not available; this inbox makes its own, held only by the URL printed here", "err", err)
			b := make([]byte, 16)
			if _, err := rand.Read(b); err != nil {
				ln.Close()
				return nil, nil, fmt.Errorf("permission inbox: make a token: %w; give one with --inbox-token", err)
			}
			o.Token = hex.EncodeToString(b)
		}
	}
	url := "http://" + ln.Addr().String() + "/"
	ib = inbox.New(inbox.Options{Timeout: o.Timeout, Agent: agent, Logger: log, URL: url})
	ib.SetNotifier(inbox.DesktopNotifier())
	unpublish := func() {}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		rec := inbox.Record{Project: project, URL: url, PID: os.Getpid(), Started: time.Now(), UserToken: userToken}
		if remove, err := inbox.Publish(dataDir, rec); err != nil {
			log.Warn("permission inbox: toolhost inbox will not find it", "err", err)
		} else {
			unpublish = remove
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := ib.Serve(ctx, ln, inbox.HandlerOptions{Token: o.Token}); err != nil && ctx.Err() == nil {
			log.Error("permission inbox stopped", "err", err)
		}
		// Stopping (a signal): the questions still waiting cannot be
		// answered any more, so their calls are refused now, within the
		// server's drain, rather than cut off after it.
		ib.Close()
	}()
	// The user's token is not printed: stderr ends up in the client's
	// logs, which outlive this process; `toolhost inbox` reads it from
	// where it is kept. A token of this inbox's own lives only in the URL
	// printed here; a token given is the giver's to know.
	switch {
	case userToken:
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: permission inbox on %s (run `toolhost inbox` in the project to open it signed in)\n", url)
	case made:
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: permission inbox on %s?token=%s (open this URL once; the browser keeps the token it holds)\n", url, o.Token)
	default:
		fmt.Fprintf(g.Streams.ErrOut, "toolhost: permission inbox on %s (open it with ?token=<the inbox token> once; the browser keeps it)\n", url)
	}
	return ib, func() {
		cancel()
		<-done
		ib.Close()
		unpublish()
	}, nil
}
