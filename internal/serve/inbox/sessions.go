package inbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// The statuses of a Call.
const (
	StatusRunning = "running"
	StatusDone    = "done"
	StatusError   = "error"
)

// Session is one session as the page shows it: its calls, newest last,
// and its "always" approvals.
type Session struct {
	ID    string `json:"id"`
	Agent string `json:"agent,omitempty"`
	// Caller is who made the session's first call seen here (scope.go).
	Caller    string             `json:"caller,omitempty"`
	Calls     []Call             `json:"calls"`
	Approvals permission.Ruleset `json:"approvals"`
	// ApprovalsError says why the approvals could not be read.
	ApprovalsError string    `json:"approvalsError,omitempty"`
	LastActive     time.Time `json:"lastActive"`
}

// Call is one tool call of a session.
type Call struct {
	ID     string    `json:"id"`
	Tool   string    `json:"tool"`
	Title  string    `json:"title,omitempty"`
	Status string    `json:"status"`
	Start  time.Time `json:"start"`
	// DurationMS is the call's running time so far, or in all once ended.
	DurationMS int64 `json:"durationMs"`
	// Output is the start of the call's output, or its error.
	Output string `json:"output,omitempty"`
}

// sessionLog is what the inbox keeps of a session.
type sessionLog struct {
	id, agent  string
	caller     string // who made its first call (scope.go)
	calls      []*Call
	lastActive time.Time
}

// CallStarted implements runtime.CallWatcher.
func (ib *Inbox) CallStarted(ctx context.Context, c runtime.WatchedCall) {
	if c.SessionID == "" {
		return
	}
	ib.mu.Lock()
	s := ib.sessionLocked(c.SessionID, c.Agent)
	if len(s.calls) == 0 && s.caller == "" {
		s.caller = httpguard.CallerOf(ctx)
	}
	s.calls = append(s.calls, &Call{ID: c.CallID, Tool: c.Tool, Title: c.Tool, Status: StatusRunning, Start: c.Start})
	if len(s.calls) > maxCalls {
		s.calls = slices.Delete(s.calls, 0, len(s.calls)-maxCalls)
	}
	ib.mu.Unlock()
	ib.changed()
}

// CallEnded implements runtime.CallWatcher.
func (ib *Inbox) CallEnded(_ context.Context, c runtime.WatchedCall, res runtime.Result, err error) {
	if c.SessionID == "" {
		return
	}
	ib.mu.Lock()
	s := ib.sessionLocked(c.SessionID, c.Agent)
	var call *Call
	for i := len(s.calls) - 1; i >= 0; i-- {
		if s.calls[i].ID == c.CallID && s.calls[i].Status == StatusRunning {
			call = s.calls[i]
			break
		}
	}
	if call != nil {
		call.DurationMS = time.Since(c.Start).Milliseconds()
		if err != nil {
			call.Status = StatusError
			call.Output = clip(err.Error(), maxOutputPreview)
		} else {
			call.Status = StatusDone
			if res.Title != "" {
				call.Title = clip(res.Title, maxTitle)
			}
			call.Output = clip(res.Output, maxOutputPreview)
		}
	}
	ib.mu.Unlock()
	ib.changed()
}

// sessionLocked returns the log of session id, making it (and dropping the
// least recently active one past maxSessions) if new.
func (ib *Inbox) sessionLocked(id, agent string) *sessionLog {
	s, ok := ib.sessions[id]
	if !ok {
		if len(ib.sessions) >= maxSessions {
			var oldest *sessionLog
			for _, o := range ib.sessions {
				if oldest == nil || o.lastActive.Before(oldest.lastActive) {
					oldest = o
				}
			}
			delete(ib.sessions, oldest.id)
		}
		s = &sessionLog{id: id, agent: agent}
		ib.sessions[id] = s
	}
	s.lastActive = time.Now()
	return s
}

// Sessions lists the sessions the inbox has seen calls of, most recently
// active first, with their approvals read from the permission service.
func (ib *Inbox) Sessions(ctx context.Context) []Session {
	now := time.Now()
	ib.mu.Lock()
	reg := ib.reg
	out := make([]Session, 0, len(ib.sessions))
	for _, s := range ib.sessions {
		v := Session{ID: s.id, Agent: s.agent, Caller: s.caller, LastActive: s.lastActive, Calls: make([]Call, 0, len(s.calls))}
		for _, c := range s.calls {
			cc := *c
			if cc.Status == StatusRunning {
				cc.DurationMS = now.Sub(cc.Start).Milliseconds()
			}
			v.Calls = append(v.Calls, cc)
		}
		out = append(out, v)
	}
	ib.mu.Unlock()
	slices.SortFunc(out, func(a, b Session) int {
		if c := b.LastActive.Compare(a.LastActive); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if reg != nil {
		for i := range out {
			approved, err := reg.Permissions().Approvals(ctx, out[i].ID) // scoped ones too, with their scope
			if err != nil {
				out[i].ApprovalsError = err.Error()
			}
			if approved == nil {
				approved = permission.Ruleset{} // [] for scripts, not null
			}
			out[i].Approvals = approved
		}
	}
	return out
}

// errNotAttached is returned by what needs the registry before Attach.
var errNotAttached = errors.New("the inbox is not attached to a registry yet; try again once toolhost has started")

// Revoke removes a session's approval of pattern under perm. It reports
// whether there was one.
func (ib *Inbox) Revoke(ctx context.Context, sessionID, perm, pattern string) (bool, error) {
	ib.mu.Lock()
	reg := ib.reg
	ib.mu.Unlock()
	if reg == nil {
		return false, errNotAttached
	}
	found, err := reg.Permissions().Revoke(ctx, sessionID, permission.Rule{Permission: perm, Pattern: pattern})
	if found {
		ib.changed()
	}
	return found, err
}

// Rules is an agent's effective rules, as the page shows them.
type Rules struct {
	Agent  string             `json:"agent"`
	Agents []string           `json:"agents"`
	Rules  permission.Ruleset `json:"rules"`
}

// AgentRules returns the named agent's rules ("" is the inbox's agent),
// each with its source (file and line).
func (ib *Inbox) AgentRules(agent string) (Rules, error) {
	ib.mu.Lock()
	reg := ib.reg
	ib.mu.Unlock()
	if agent == "" {
		agent = ib.opts.Agent
	}
	if reg == nil {
		return Rules{}, errNotAttached
	}
	var names []string
	for n := range reg.Agents() {
		names = append(names, n)
	}
	slices.Sort(names)
	rules, err := reg.AgentRules(agent)
	if err != nil {
		return Rules{Agent: agent, Agents: names}, fmt.Errorf("rules of agent %q: %w", agent, err)
	}
	return Rules{Agent: agent, Agents: names, Rules: rules}, nil
}
