package inbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// DefaultTimeout is how long a parked question waits for an answer unless
// Options.Timeout says otherwise.
const DefaultTimeout = 10 * time.Minute

// Limits on what the inbox keeps and accepts.
const (
	// MaxMessage is the longest reject message accepted, in bytes.
	MaxMessage = 4000
	// maxSessions and maxCalls bound the call history kept for the page.
	maxSessions = 50
	maxCalls    = 100
	// maxAnswered is how many answered ids are remembered, so a second
	// reply to one is told it came too late rather than "unknown".
	maxAnswered = 1000
	// maxPreview bounds a preview (diff, command, output) shown on the page.
	maxPreview = 20000
	// maxOutputPreview bounds a call's output preview, and maxTitle its
	// title.
	maxOutputPreview = 400
	maxTitle         = 200
	// maxPatterns bounds the patterns (and "always" patterns) shown of one
	// request, each cut at maxPreview.
	maxPatterns = 100
)

// Registry is what the inbox reads from the registry it serves; a
// *runtime.Registry is one.
type Registry interface {
	AgentRules(agent string) (permission.Ruleset, error)
	Agents() map[string]*runtime.Agent
	Permissions() *permission.Service
	WatchCalls(w runtime.CallWatcher) (cancel func())
}

var _ Registry = (*runtime.Registry)(nil)

// Options configure New.
type Options struct {
	// Timeout is how long a parked question waits for an answer before it
	// is refused. Default DefaultTimeout.
	Timeout time.Duration
	// Agent whose rules the page shows first. Default: "build".
	Agent string
	// Logger receives the inbox's logs. Default: discard.
	Logger *slog.Logger
	// URL is the page's address without the token, told to the person
	// wherever a question waits (a notification, the MCP client's
	// messages). "": not known.
	URL string
}

// Inbox parks permission questions until a person answers them. Build it
// with New, give it to the host as its Asker, then Attach the registry.
// It is safe for concurrent use.
type Inbox struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	reg      Registry
	detach   func()
	pending  map[string]*parked // by id
	answered map[string]bool    // ids answered or gone, for clean refusals
	gone     []string           // answered's ids, oldest first
	sessions map[string]*sessionLog
	subs     map[chan struct{}]struct{}
	shared   *shared // the fleet's store, when shared (fleet.go)

	trust          ProjectTrust // the project's trust, for the banner (trust.go)
	startedTrusted bool

	notify notifier // desktop notifications (notify.go)

	closed    chan struct{} // closed by Close
	closeOnce sync.Once
}

var (
	_ permission.Asker    = (*Inbox)(nil)
	_ runtime.CallWatcher = (*Inbox)(nil)
)

// parked is one question waiting for a person.
type parked struct {
	req      Request
	reply    chan permission.Reply // buffered 1; written once under Inbox.mu
	answered bool
}

// Request is a parked question as the page and the API show it.
type Request struct {
	// ID names the question in the API; it is random (128 bits), so it
	// cannot be guessed by a page that has not read the list.
	ID        string `json:"id"`
	SessionID string `json:"sessionID,omitempty"`
	// Caller is who made the call that asks (httpguard.CallerOf): where
	// several callers share the inbox, only it and the operators see and
	// answer the question (scope.go).
	Caller     string   `json:"caller,omitempty"`
	Tool       string   `json:"tool,omitempty"`
	Permission string   `json:"permission"`
	Patterns   []string `json:"patterns"`
	// Always is what an "always" answer approves for the session.
	Always []string `json:"always,omitempty"`
	// Preview is what the call would do: the diff of an edit, the command
	// of bash, the URL of webfetch.
	Preview Preview `json:"preview"`
	// Rule is the rule that made toolhost ask; its source names the file
	// and line.
	Rule *permission.Rule `json:"rule,omitempty"`
	// Scope is the wasm or JS tool that asked, whose "always" approves
	// for it alone; zero for a built-in's request. ScopeNote says so in
	// words ("jira (wasm, ~/…/jira.wasm) asks: bash `*` — always applies
	// to jira only").
	Scope     permission.Scope `json:"scope,omitzero"`
	ScopeNote string           `json:"scopeNote,omitempty"`
	Asked     time.Time        `json:"asked"`
	Deadline  time.Time        `json:"deadline"`
}

// Preview is what a request would do, in the form its tool reported it.
type Preview struct {
	// Kind is "diff", "command", "url", or "" when the tool reported none
	// of those.
	Kind string `json:"kind,omitempty"`
	Text string `json:"text,omitempty"`
}

// previewKeys are the request metadata keys shown as the preview, first
// found first: what edits, bash and webfetch attach to their requests.
var previewKeys = []string{"diff", "command", "url"}

func previewOf(meta map[string]any) Preview {
	for _, k := range previewKeys {
		if s, ok := meta[k].(string); ok && s != "" {
			return Preview{Kind: k, Text: clip(s, maxPreview)}
		}
	}
	return Preview{}
}

// URL is the page's address without the token (Options.URL).
func (ib *Inbox) URL() string { return ib.opts.URL }

// New returns an empty inbox.
func New(opts Options) *Inbox {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Agent == "" {
		opts.Agent = "build"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Inbox{
		opts:     opts,
		log:      opts.Logger,
		pending:  map[string]*parked{},
		answered: map[string]bool{},
		sessions: map[string]*sessionLog{},
		subs:     map[chan struct{}]struct{}{},
		closed:   make(chan struct{}),
	}
}

// Attach connects the inbox to the registry whose calls it shows and whose
// approvals and rules it reads. Until then the page lists questions only.
func (ib *Inbox) Attach(reg Registry) {
	ib.mu.Lock()
	old := ib.detach
	ib.reg = reg
	ib.detach = reg.WatchCalls(ib)
	ib.mu.Unlock()
	if old != nil {
		old()
	}
}

// Close stops watching the registry's calls and refuses every question
// parked now or later with a *permission.UnansweredError: toolhost is
// stopping, and nobody can answer any more. Calling it again is harmless.
func (ib *Inbox) Close() {
	ib.closeOnce.Do(func() { close(ib.closed) })
	ib.mu.Lock()
	d := ib.detach
	ib.detach = nil
	ib.mu.Unlock()
	if d != nil {
		d()
	}
}

// ErrUnknown and ErrAnswered are the refusals of Reply for an id that is
// not parked.
var (
	ErrUnknown  = errors.New("no such permission request in this inbox; list the pending ones with GET /api/requests")
	ErrAnswered = errors.New("this permission request was already answered, cancelled or timed out")
)

// Ask implements permission.Asker: it parks req until Reply answers it, ctx
// ends (the call was cancelled, or the permission service settled it
// another way), or the timeout passes, which refuses it with a
// *permission.UnansweredError saying nobody answered in time.
func (ib *Inbox) Ask(ctx context.Context, req permission.Request) (permission.Reply, error) {
	now := time.Now()
	p := &parked{
		req: Request{
			ID:         newID(),
			SessionID:  req.SessionID,
			Caller:     httpguard.CallerOf(ctx),
			Tool:       req.Tool,
			Permission: req.Permission,
			Patterns:   clipAll(req.Patterns), // [] for scripts, not null
			Always:     clipAll(req.Always),
			Preview:    previewOf(req.Metadata),
			Rule:       req.AskedBy,
			Scope:      req.Scope,
			ScopeNote:  permission.AlwaysNote(req),
			Asked:      now,
			Deadline:   now.Add(ib.opts.Timeout),
		},
		reply: make(chan permission.Reply, 1),
	}
	ib.mu.Lock()
	ib.pending[p.req.ID] = p
	ib.mu.Unlock()
	ib.log.InfoContext(ctx, "permission request waiting in the inbox", "id", p.req.ID, "session", req.SessionID, "permission", req.Permission, "patterns", req.Patterns)
	ib.publish(ctx, p, req)
	ib.changed()
	ib.notifyParked(p.req)
	keep := false // stopping: the question stays answerable elsewhere (fleet.go)
	defer func() {
		ib.mu.Lock()
		delete(ib.pending, p.req.ID)
		ib.forgetLocked(p.req.ID)
		ib.mu.Unlock()
		if !keep {
			ib.withdraw(p.req.ID)
		}
		ib.changed()
	}()

	timer := time.NewTimer(ib.opts.Timeout)
	defer timer.Stop()
	// A reply already given wins over a close or timeout at the same time.
	select {
	case r := <-p.reply:
		return r, nil
	case <-ctx.Done():
		return permission.Reply{}, fmt.Errorf("wait in the permission inbox: %w", ctx.Err())
	case <-ib.closed:
		if ib.sharedStore() != nil {
			keep = true
			return permission.Reply{}, unanswered(req, "this server replica is stopping (drain) while the question waits in the permission inbox", "answer it in the permission inbox (any replica's page lists it), then call the tool again: the answer is kept for the call made again")
		}
		return permission.Reply{}, unanswered(req, "the permission inbox closed before anyone answered, as toolhost is stopping", "answer it in the permission inbox while toolhost runs")
	case <-timer.C:
		return permission.Reply{}, unanswered(req, fmt.Sprintf("nobody answered it in the permission inbox within %s", ib.opts.Timeout),
			"answer it in the permission inbox sooner (or give it longer with --inbox-timeout)")
	}
}

// unanswered is the refusal of a question nobody answered: why, and what
// the user can do besides adding the rule.
func unanswered(req permission.Request, why, remedy string) *permission.UnansweredError {
	return permission.Unanswered(req, why, strings.ReplaceAll(remedy, "%", "%%")+", or add %s to toolhost.json", nil)
}

// Reply answers the parked request id. It returns ErrUnknown or
// ErrAnswered (wrapped) when there is no such request waiting, and an error
// naming the problem when r is not a valid answer.
func (ib *Inbox) Reply(id string, r permission.Reply) error {
	switch r.Kind {
	case permission.Once, permission.Always:
		if r.Message != "" {
			return fmt.Errorf("a message goes with reject only; reply %q without one, or reject with it", r.Kind)
		}
	case permission.Reject:
		r.Message = strings.TrimSpace(r.Message)
		if len(r.Message) > MaxMessage {
			return fmt.Errorf("message of %d bytes is longer than %d; shorten it", len(r.Message), MaxMessage)
		}
		if !utf8.ValidString(r.Message) {
			return errors.New("message is not valid UTF-8")
		}
	default:
		return fmt.Errorf("unknown reply %q; use once, always or reject", r.Kind)
	}
	ib.mu.Lock()
	p, ok := ib.pending[id]
	switch {
	case ok && !p.answered:
		p.answered = true
		p.reply <- r
	case ok || ib.answered[id]:
		ib.mu.Unlock()
		return fmt.Errorf("reply to %s: %w", id, ErrAnswered)
	default:
		ib.mu.Unlock()
		// Parked on another replica of a fleet, perhaps (fleet.go).
		return ib.replyShared(id, r)
	}
	ib.mu.Unlock()
	ib.log.Info("permission request answered in the inbox", "id", id, "session", p.req.SessionID, "reply", r.Kind, "message", r.Message != "")
	return nil
}

// forgetLocked remembers id as answered or gone, keeping the last
// maxAnswered.
func (ib *Inbox) forgetLocked(id string) {
	if ib.answered[id] {
		return
	}
	ib.answered[id] = true
	ib.gone = append(ib.gone, id)
	if len(ib.gone) > maxAnswered {
		delete(ib.answered, ib.gone[0])
		ib.gone = ib.gone[1:]
	}
}

// Pending lists the parked requests, oldest first.
func (ib *Inbox) Pending() []Request {
	ib.mu.Lock()
	out := make([]Request, 0, len(ib.pending))
	for _, p := range ib.pending {
		if !p.answered {
			out = append(out, p.req)
		}
	}
	ib.mu.Unlock()
	out = ib.withShared(out)
	slices.SortFunc(out, func(a, b Request) int {
		if c := a.Asked.Compare(b.Asked); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// subscribe returns a channel told (without blocking, coalesced) of every
// change of the requests or sessions, until cancel; not ok when
// maxEventStreams are subscribed already.
func (ib *Inbox) subscribe() (changes <-chan struct{}, cancel func(), ok bool) {
	ch := make(chan struct{}, 1)
	ib.mu.Lock()
	if len(ib.subs) >= maxEventStreams {
		ib.mu.Unlock()
		return nil, nil, false
	}
	ib.subs[ch] = struct{}{}
	ib.mu.Unlock()
	return ch, func() {
		ib.mu.Lock()
		delete(ib.subs, ch)
		ib.mu.Unlock()
	}, true
}

func (ib *Inbox) changed() {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	for ch := range ib.subs {
		select {
		case ch <- struct{}{}:
		default: // a change is already waiting to be read
		}
	}
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "req_" + hex.EncodeToString(b[:])
}

// clipAll is patterns as the page shows them: at most maxPatterns, each
// clipped to maxPreview; never nil.
func clipAll(patterns []string) []string {
	out := make([]string, 0, min(len(patterns), maxPatterns+1))
	for i, p := range patterns {
		if i == maxPatterns {
			out = append(out, fmt.Sprintf("… (%d more)", len(patterns)-maxPatterns))
			break
		}
		out = append(out, clip(p, maxPreview))
	}
	return out
}

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n… (cut)"
}
