package inbox

import (
	"errors"
	"net/http"

	"github.com/toolhost/toolhost/internal/confine/trust"
)

// ProjectTrust lets the page show a project whose own config and tools
// are not trusted, with what trusting it would let it do, and trust it
// (internal/confine/trust.Reviewer).
type ProjectTrust interface {
	Review() trust.Review
	// Trust trusts the content whose digest the person was shown.
	Trust(digest string) error
}

// trustBanner is what the page's trust banner renders.
type trustBanner struct {
	trust.Review
	// Restart is true once the project is trusted while this toolhost,
	// started untrusted, still runs on the user's config alone.
	Restart bool
}

// SetTrust gives the page the project's trust; startedTrusted says whether
// the running host loaded the project's config. Without it the page shows
// no banner.
func (ib *Inbox) SetTrust(t ProjectTrust, startedTrusted bool) {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	ib.trust, ib.startedTrusted = t, startedTrusted
}

// banner is the banner to show, nil for none.
func (ib *Inbox) banner() *trustBanner {
	ib.mu.Lock()
	t, started := ib.trust, ib.startedTrusted
	ib.mu.Unlock()
	if t == nil {
		return nil
	}
	rv := t.Review()
	switch {
	case !rv.Trusted:
		return &trustBanner{Review: rv}
	case !started:
		return &trustBanner{Review: rv, Restart: true}
	}
	return nil
}

// trustBody is the body of POST /api/trust.
type trustBody struct {
	Digest string `json:"digest"`
}

// apiTrustGet returns the project's review: {"project", "trusted",
// "digest", "summary", "files", ...}.
func (ib *Inbox) apiTrustGet(w http.ResponseWriter, r *http.Request) {
	if !operatorOnly(w, r) {
		return
	}
	ib.mu.Lock()
	t := ib.trust
	ib.mu.Unlock()
	if t == nil {
		apiError(w, http.StatusNotFound, "this toolhost does not report project trust")
		return
	}
	writeJSON(w, http.StatusOK, t.Review())
}

// apiTrust trusts the project's content, if it is still the content whose
// digest the body names. It is a write like a reply: a JSON body, behind
// the token and Origin checks and CrossOriginProtection.
func (ib *Inbox) apiTrust(w http.ResponseWriter, r *http.Request) {
	if !operatorOnly(w, r) {
		return
	}
	var body trustBody
	if !decodeJSON(w, r, &body) {
		return
	}
	ib.mu.Lock()
	t := ib.trust
	ib.mu.Unlock()
	if t == nil {
		apiError(w, http.StatusNotFound, "this toolhost does not report project trust")
		return
	}
	if body.Digest == "" {
		apiError(w, http.StatusBadRequest, `send {"digest": ...}, the digest of the content shown`)
		return
	}
	err := t.Trust(body.Digest)
	switch {
	case errors.Is(err, trust.ErrChanged):
		apiError(w, http.StatusConflict, err.Error())
	case err != nil:
		apiError(w, http.StatusBadRequest, err.Error())
	default:
		ib.log.Warn("project trusted from the inbox page", "digest", body.Digest)
		ib.mu.Lock()
		restart := !ib.startedTrusted
		ib.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "restart": restart})
	}
}
