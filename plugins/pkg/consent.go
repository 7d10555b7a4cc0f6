package pkg

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/plugins/wasm"
)

// ConsentRequest is what a person is shown before a plugin gets
// capabilities.
type ConsentRequest struct {
	Name, Version, Ref, Digest string
	// Capabilities are everything the plugin asks for.
	Capabilities wasm.Capabilities
	// Lines are what needs agreeing to, one per line: every capability on
	// add, only the increases on update.
	Lines []string
	// Update is set when an installed plugin asks for more; Previous is
	// the version installed.
	Update   bool
	Previous string
	// Signature says whether a trusted key signed the plugin, a key not
	// trusted, or none.
	Signature SignatureStatus
}

// Describe is the request as a person reads it: who asks, what is
// signed, and one "  - " line per capability.
func (r ConsentRequest) Describe() string {
	var b strings.Builder
	if r.Update {
		fmt.Fprintf(&b, "Plugin %s %s → %s (%s, %s) asks for more than you granted:\n", r.Name, r.Previous, r.Version, r.Digest, r.Signature)
	} else {
		fmt.Fprintf(&b, "Plugin %s %s from %s (%s, %s) asks for:\n", r.Name, r.Version, r.Ref, r.Digest, r.Signature)
	}
	for _, l := range r.Lines {
		fmt.Fprintf(&b, "  - %s\n", l)
	}
	return b.String()
}

// command is the command that agrees to the request without asking.
func (r ConsentRequest) command() string {
	if r.Update {
		return "toolhost plugin update " + r.Name + " --yes"
	}
	return "toolhost plugin add " + shellQuote(r.Ref) + " --yes"
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// plain path characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ErrConsentRefused is returned when the person said no (or could not be
// asked).
var ErrConsentRefused = errors.New("consent refused")

// consent asks for req unless yes. Where no one can be asked (no
// Consent), nothing is agreed to, and the error shows the request and the
// command that agrees to it.
func (m *Manager) consent(ctx context.Context, req ConsentRequest, yes bool) error {
	if yes {
		return nil
	}
	if m.Consent == nil {
		return fmt.Errorf("%sThere is no terminal to ask you here, so nothing was agreed to (%w).\nTo agree to the above, run: %s", req.Describe(), ErrConsentRefused, req.command())
	}
	ok, err := m.Consent(ctx, req)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("plugin %s %s: %w", req.Name, req.Version, ErrConsentRefused)
	}
	return nil
}
