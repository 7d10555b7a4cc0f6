package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/toolhost/toolhost/internal/inbox"
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

// defaultInboxAddr lets the system pick a free loopback port; the URL is
// printed on stderr.
const defaultInboxAddr = "127.0.0.1:0"

func addInboxFlags(fs *pflag.FlagSet, o *InboxOptions) {
	fs.StringVar(&o.Addr, "inbox", defaultInboxAddr, "with --ask-fallback inbox: serve the permission inbox on `host:port` (its URL is printed on stderr)")
	fs.StringVar(&o.Token, "inbox-token", "", "with --ask-fallback inbox: bearer `token` the inbox requires (default $"+inbox.TokenEnv+"; needed beyond loopback)")
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
	return inbox.CheckBind(o.Addr, o.Token)
}

// startInbox listens on o.Addr, prints the page's URL on stderr and serves
// the inbox until ctx ends. Attach the registry once the host is built.
// stop ends the server and waits for it.
func startInbox(ctx context.Context, g *Globals, o InboxOptions, agent string) (ib *inbox.Inbox, stop func(), err error) {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, nil, fmt.Errorf("permission inbox: listen on %s: %w; pick another address with --inbox", o.Addr, err)
	}
	// Loopback keeps other machines out, not the processes of this one —
	// among them the commands the model runs through bash, which could
	// otherwise answer their own questions or trust the project. Without
	// a token given, the inbox makes one that only the printed URL holds
	// (not the environment or the command line, which /proc shows).
	printToken := ""
	if o.Token == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			ln.Close()
			return nil, nil, fmt.Errorf("permission inbox: make a token: %w; give one with --inbox-token", err)
		}
		o.Token = hex.EncodeToString(b)
		printToken = "?token=" + o.Token
	}
	ib = inbox.New(inbox.Options{Timeout: o.Timeout, Agent: agent, Logger: g.logger()})
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := ib.Serve(ctx, ln, inbox.HandlerOptions{Token: o.Token}); err != nil && ctx.Err() == nil {
			g.logger().Error("permission inbox stopped", "err", err)
		}
		// Stopping (a signal): the questions still waiting cannot be
		// answered any more, so their calls are refused now, within the
		// server's drain, rather than cut off after it.
		ib.Close()
	}()
	note := " (open it with ?token=<the inbox token> once; the browser keeps it)"
	if printToken != "" {
		note = " (open this URL once; the browser keeps the token it holds)"
	}
	fmt.Fprintf(g.Streams.ErrOut, "toolhost: permission inbox on http://%s/%s%s\n", ln.Addr(), printToken, note)
	return ib, func() {
		cancel()
		<-done
		ib.Close()
	}, nil
}
