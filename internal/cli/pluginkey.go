package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"aead.dev/minisign"
	"golang.org/x/term"

	"github.com/toolhost/toolhost/plugins/pkg"
)

// The password of a minisign secret key comes, in this order, from the
// variable --password-env names, from TOOLHOST_KEY_PASSWORD, or from the
// person at the terminal (typed without echo). Without any of them a
// command that needs it fails and says how to give it; keygen never
// falls back to an unencrypted key unless --unencrypted says so.

// errNoPassword says no password source was available.
var errNoPassword = errors.New("there is no terminal to ask for the password")

// passwordVar is the variable the password is read from.
func passwordVar(opts *PluginOptions) string {
	if opts.PasswordEnv != "" {
		return opts.PasswordEnv
	}
	return pkg.PasswordEnv
}

// passwordFromEnv returns the password the environment gives, if any.
func passwordFromEnv(opts *PluginOptions) (string, bool) {
	return os.LookupEnv(passwordVar(opts))
}

// askPassword reads a password at the terminal without echoing it.
func askPassword(ctx context.Context, g *Globals, prompt string) (string, error) {
	tty := g.Streams.TTY
	if tty == nil {
		return "", errNoPassword
	}
	fmt.Fprint(tty, prompt)
	if f, ok := tty.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		type result struct {
			b   []byte
			err error
		}
		done := make(chan result, 1)
		go func() {
			b, err := term.ReadPassword(int(f.Fd()))
			done <- result{b, err}
		}()
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case r := <-done:
			fmt.Fprintln(tty)
			if r.err != nil {
				return "", fmt.Errorf("read the password from the terminal: %w", r.err)
			}
			return string(r.b), nil
		}
	}
	line, err := g.Streams.terminal().readLine(ctx)
	return strings.TrimRight(line, "\r\n"), err
}

// readSecretKey reads --key, asking for its password only when it is
// encrypted.
func readSecretKey(ctx context.Context, g *Globals, opts *PluginOptions) (minisign.PrivateKey, error) {
	return pkg.ReadSecretKey(opts.Key, func() (string, error) {
		if pw, ok := passwordFromEnv(opts); ok {
			return pw, nil
		}
		pw, err := askPassword(ctx, g, fmt.Sprintf("Password for %s: ", opts.Key))
		if errors.Is(err, errNoPassword) {
			return "", fmt.Errorf("%w and %s is not set; set it for scripts, or run at a terminal", err, passwordVar(opts))
		}
		return pw, err
	})
}

// newKeyPassword returns the password for a new key: from the
// environment, or typed twice at the terminal.
func newKeyPassword(ctx context.Context, g *Globals, opts *PluginOptions) (string, error) {
	if pw, ok := passwordFromEnv(opts); ok {
		if pw == "" {
			return "", fmt.Errorf("the password in the environment is empty; set a password, or pass --unencrypted for a key without one")
		}
		return pw, nil
	}
	pw, err := askPassword(ctx, g, fmt.Sprintf("Password to encrypt %s: ", opts.Key))
	if errors.Is(err, errNoPassword) {
		return "", fmt.Errorf("the secret key is encrypted with a password, but %w and %s is not set; set it for scripts, run at a terminal, or pass --unencrypted to write it without one", err, passwordVar(opts))
	}
	if err != nil {
		return "", err
	}
	if pw == "" {
		return "", fmt.Errorf("the password is empty; type one, or pass --unencrypted for a key without one")
	}
	again, err := askPassword(ctx, g, "Password again: ")
	if err != nil {
		return "", err
	}
	if again != pw {
		return "", fmt.Errorf("the passwords differ; nothing was written, run keygen again")
	}
	return pw, nil
}

// runPluginKeygen makes a key pair: the secret key at --key (encrypted
// unless --unencrypted), the public key beside it as <key>.pub, and the
// public key printed for trust.keys.
func runPluginKeygen(ctx context.Context, g *Globals, opts *PluginOptions) error {
	password := ""
	if !opts.Unencrypted {
		var err error
		if password, err = newKeyPassword(ctx, g, opts); err != nil {
			return err
		}
	}
	pub, err := pkg.GenerateKey(opts.Key, password)
	if err != nil {
		return err
	}
	out := g.Streams.Out
	if opts.Unencrypted {
		fmt.Fprintf(out, "secret key: %s (NOT encrypted: anyone who can read it can sign as you)\n", opts.Key)
	} else {
		fmt.Fprintf(out, "secret key: %s (encrypted with your password)\n", opts.Key)
	}
	fmt.Fprintf(out, "public key: %s.pub\nadd it to \"trust\": {\"keys\": [...]}:\n%s\n", opts.Key, pub)
	return nil
}
