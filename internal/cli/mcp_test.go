package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/runtime/config"
)

func TestMCPCommandFlags(t *testing.T) {
	// Not parallel: cases set TOOLHOST_MCP_TOKEN in the environment.
	tests := []struct {
		name    string
		args    []string
		env     string
		want    MCPOptions
		wantErr string
	}{
		{"no flags serve stdio", nil, "", MCPOptions{}, ""},
		{"--http with a loopback address", []string{"--http", "127.0.0.1:8765"}, "", MCPOptions{HTTP: "127.0.0.1:8765"}, ""},
		{"--stateless and --agent", []string{"--http", "localhost:1", "--stateless", "--agent", "plan"}, "", MCPOptions{HTTP: "localhost:1", Stateless: true, Agent: "plan"}, ""},
		{"the token comes from the environment", []string{"--http", "127.0.0.1:1"}, "envtok", MCPOptions{HTTP: "127.0.0.1:1", Token: "envtok"}, ""},
		{"--token beats the environment", []string{"--http", "127.0.0.1:1", "--token", "flag"}, "envtok", MCPOptions{HTTP: "127.0.0.1:1", Token: "flag"}, ""},
		{"--stateless needs --http", []string{"--stateless"}, "", MCPOptions{}, "--stateless applies to --http"},
		{"a network address needs a token", []string{"--http", "0.0.0.0:8765"}, "", MCPOptions{}, "not loopback"},
		{"--drain-timeout is a duration", []string{"--http", "127.0.0.1:1", "--drain-timeout", "30s"}, "", MCPOptions{HTTP: "127.0.0.1:1", DrainTimeout: 30 * time.Second}, ""},
		{"a network address with a token is allowed", []string{"--http", "0.0.0.0:8765", "--token", "t"}, "", MCPOptions{HTTP: "0.0.0.0:8765", Token: "t"}, ""},
		{"--ask-fallback allow", []string{"--ask-fallback", "allow"}, "", MCPOptions{AskFallback: "allow"}, ""},
		{"--ask-fallback deny", []string{"--ask-fallback=deny"}, "", MCPOptions{AskFallback: "deny"}, ""},
		{"--ask-fallback takes nothing else", []string{"--ask-fallback", "ask"}, "", MCPOptions{}, `--ask-fallback "ask": use allow, deny or inbox`},
		{"--ask-fallback is not case-folded", []string{"--ask-fallback", "Allow"}, "", MCPOptions{}, "use allow, deny or inbox"},
		{"--ask-fallback inbox serves the inbox on loopback", []string{"--ask-fallback", "inbox"}, "", MCPOptions{AskFallback: "inbox"}, ""},
		{"--inbox and its timeout", []string{"--ask-fallback", "inbox", "--inbox", "127.0.0.1:8766", "--inbox-timeout", "2m"}, "", MCPOptions{AskFallback: "inbox", Inbox: InboxOptions{Addr: "127.0.0.1:8766", Timeout: 2 * time.Minute}}, ""},
		{"an inbox beyond loopback needs a token", []string{"--ask-fallback", "inbox", "--inbox", "0.0.0.0:8766"}, "", MCPOptions{}, "--inbox-token"},
		{"an inbox beyond loopback with a token", []string{"--ask-fallback", "inbox", "--inbox", "0.0.0.0:8766", "--inbox-token", "t"}, "", MCPOptions{AskFallback: "inbox", Inbox: InboxOptions{Addr: "0.0.0.0:8766", Token: "t", Timeout: inbox.DefaultTimeout}}, ""},
		{"--inbox-timeout must be positive", []string{"--ask-fallback", "inbox", "--inbox-timeout", "0s"}, "", MCPOptions{}, "must be positive"},
		{"--tool-prefix is recorded as given", []string{"--tool-prefix", "th_"}, "", MCPOptions{ToolPrefix: "th_", ToolPrefixSet: true}, ""},
		{"an empty --tool-prefix is a choice", []string{"--tool-prefix="}, "", MCPOptions{ToolPrefixSet: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TOOLHOST_MCP_TOKEN", tt.env)
			t.Setenv(inbox.TokenEnv, "")
			if tt.want.Inbox == (InboxOptions{}) {
				tt.want.Inbox = InboxOptions{Timeout: inbox.DefaultTimeout} // Addr "": the project's stable address
			}
			var got *MCPOptions
			g := &Globals{Streams: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
			cmd := NewCmdMCP(g, func(_ context.Context, _ *Globals, o *MCPOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || ExitCode(err) != ExitUsage {
					t.Fatalf("err = %v (exit %d), want usage error with %q", err, ExitCode(err), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *got != tt.want {
				t.Errorf("options %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestLogFormatIsTextOrJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		format  string
		wantErr bool
	}{{"text", false}, {"json", false}, {"xml", true}, {"JSON", true}, {"", false}} {
		errOut := &bytes.Buffer{}
		g := &Globals{Streams: IOStreams{Out: &bytes.Buffer{}, ErrOut: errOut}}
		root := NewRootCmd(g)
		root.SetArgs([]string{"--log-format", c.format, "version"})
		err := root.Execute()
		if (err != nil) != c.wantErr || (c.wantErr && ExitCode(err) != ExitUsage) {
			t.Errorf("--log-format %q: err = %v, want error %v as a usage error", c.format, err, c.wantErr)
		}
		if c.format == "json" {
			g.logger().Warn("hello", "k", "v")
			if !strings.HasPrefix(errOut.String(), "{") || !strings.Contains(errOut.String(), `"msg":"hello"`) {
				t.Errorf("json log line = %q", errOut.String())
			}
		}
	}
}

func TestServerOptionsPutFlagsOverTheConfig(t *testing.T) {
	t.Parallel()
	off, cfgPrefix := false, "cfg_"
	tests := []struct {
		name       string
		cfg        config.Server
		opts       MCPOptions
		fallback   string
		skipRead   bool
		wantPrefix *string
	}{
		{name: "nothing set: deny, the read check on, the prefix guessed"},
		{name: "the config decides without flags", cfg: config.Server{AskFallback: "allow", RequireRead: &off, ToolPrefix: &cfgPrefix}, fallback: "allow", skipRead: true, wantPrefix: &cfgPrefix},
		{name: "flags win over the config", cfg: config.Server{AskFallback: "allow", ToolPrefix: &cfgPrefix}, opts: MCPOptions{AskFallback: "deny", ToolPrefix: "", ToolPrefixSet: true}, fallback: "deny", wantPrefix: new(string)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := serverOptions(tt.cfg, &tt.opts, nil)
			if o.AskFallback != tt.fallback || o.SkipReadCheck != tt.skipRead {
				t.Errorf("fallback %q skipRead %v, want %q %v", o.AskFallback, o.SkipReadCheck, tt.fallback, tt.skipRead)
			}
			if (o.ToolPrefix == nil) != (tt.wantPrefix == nil) || o.ToolPrefix != nil && *o.ToolPrefix != *tt.wantPrefix {
				t.Errorf("prefix %v, want %v", o.ToolPrefix, tt.wantPrefix)
			}
		})
	}
}
