package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// One inbox for a fleet. Replicas of `toolhost mcp --http --stateless` on
// one shared store each park their questions in their own Inbox, but a
// person must see them all on whichever replica's page the load balancer
// shows, and answer any of them there. Share makes it so:
//
//   - Ask also stores the question (namespace pendingNS of the store
//     session sharedSession), with the permission request it stands for,
//     and withdraws it once answered or timed out.
//   - Pending lists the stored questions of every replica beside its own.
//   - Reply to a question parked on another replica stores the answer
//     (answerNS) and notifies sharedAnswers; the replica holding the call
//     takes it (deleting it, which is the acknowledgement) and the call
//     goes on there.
//   - A question whose replica is gone — drained (Close keeps its stored
//     question) or killed — is still listed until its deadline; an answer
//     nobody takes within ackTimeout is recorded in the question's session
//     (permission.Service.RecordAnswer), so the client's retry of the call
//     runs without asking again.
//
// Notifications are hints (session.Notifier): a listener that reconnects
// re-reads the answers to every question parked here.

const (
	sharedSession = "toolhost-inbox"
	pendingNS     = "pending" // question id → JSON sharedQuestion
	answerNS      = "answer"  // question id → JSON permission.Reply
	sharedAnswers = "inbox-answer"
	sharedChanged = "inbox-changed" // a question was parked or settled somewhere: pages reload
)

// ackTimeout is how long Reply waits for the replica holding a question
// to take its answer before recording it for the retry instead.
var ackTimeout = 3 * time.Second

type sharedQuestion struct {
	Request Request            `json:"request"` // as the page shows it
	Ask     permission.Request `json:"ask"`     // what an unclaimed answer is recorded against
}

// shared is the store of a shared inbox.
type shared struct {
	store    session.Store
	notifier session.Notifier
}

// Share makes ib one inbox with every other inbox sharing store (see
// above), until ctx ends. store must notify (PostgreSQL's does).
func (ib *Inbox) Share(ctx context.Context, store session.Store) error {
	n, ok := store.(session.Notifier)
	if !ok {
		return errors.New("share the permission inbox: the session store cannot notify other replicas; use the PostgreSQL store")
	}
	ib.mu.Lock()
	ib.shared = &shared{store: store, notifier: n}
	ib.mu.Unlock()
	if err := n.Listen(ctx, sharedChanged, func(string) { ib.changed() }); err != nil {
		return fmt.Errorf("share the permission inbox: %w", err)
	}
	return n.Listen(ctx, sharedAnswers, func(id string) {
		go ib.takeShared(context.WithoutCancel(ctx), id)
	})
}

// announce tells the other replicas' pages that the questions changed.
func (sh *shared) announce(ctx context.Context) {
	_ = sh.notifier.Notify(context.WithoutCancel(ctx), sharedChanged, "")
}

func (ib *Inbox) sharedStore() *shared {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	return ib.shared
}

// publish stores a question parked here.
func (ib *Inbox) publish(ctx context.Context, p *parked, req permission.Request) {
	sh := ib.sharedStore()
	if sh == nil {
		return
	}
	b, err := json.Marshal(sharedQuestion{Request: p.req, Ask: req})
	if err == nil {
		err = session.Put(context.WithoutCancel(ctx), sh.store, sharedSession, pendingNS, p.req.ID, b)
	}
	if err != nil {
		ib.log.Warn("permission request not shared with the other replicas; answer it on this one's page", "id", p.req.ID, "err", err)
		return
	}
	sh.announce(ctx)
}

// withdraw removes a question from the store once it is settled here.
func (ib *Inbox) withdraw(id string) {
	if sh := ib.sharedStore(); sh != nil {
		if _, ok := take(context.Background(), sh.store, pendingNS, id); ok {
			sh.announce(context.Background())
		}
	}
}

// takeShared answers the question id parked here with the answer another
// replica stored; "" (the listener reconnected) looks at every one.
func (ib *Inbox) takeShared(ctx context.Context, id string) {
	if id == "" {
		for _, r := range ib.localPending() {
			ib.takeShared(ctx, r.ID)
		}
		return
	}
	ib.mu.Lock()
	p, ok := ib.pending[id]
	here := ok && !p.answered
	sh := ib.shared
	ib.mu.Unlock()
	if !here || sh == nil {
		return
	}
	raw, ok := take(ctx, sh.store, answerNS, id)
	if !ok {
		return
	}
	var r permission.Reply
	if err := json.Unmarshal(raw, &r); err != nil {
		return
	}
	if err := ib.Reply(id, r); err != nil {
		ib.log.Warn("relayed inbox answer not applied", "id", id, "err", err)
	}
}

// listShared is every replica's stored questions still within their
// deadline; expired ones are deleted.
func (ib *Inbox) listShared(ctx context.Context) []Request {
	sh := ib.sharedStore()
	if sh == nil {
		return nil
	}
	kvs, err := sh.store.List(ctx, sharedSession, pendingNS)
	if err != nil {
		ib.log.Warn("other replicas' permission requests not listed", "err", err)
		return nil
	}
	now := time.Now()
	var out []Request
	for _, kv := range kvs {
		var q sharedQuestion
		if json.Unmarshal(kv.Value, &q) != nil || now.After(q.Request.Deadline) {
			_, _ = take(ctx, sh.store, pendingNS, kv.Key)
			continue
		}
		out = append(out, q.Request)
	}
	return out
}

// replyShared answers a question parked on another replica, or recorded
// for the retry when that replica is gone. It returns ErrUnknown when the
// store holds no such question.
func (ib *Inbox) replyShared(id string, r permission.Reply) error {
	sh := ib.sharedStore()
	if sh == nil {
		return fmt.Errorf("reply to %s: %w", id, ErrUnknown)
	}
	ctx := context.Background()
	raw, ok := take(ctx, sh.store, pendingNS, id)
	if !ok {
		return fmt.Errorf("reply to %s: %w", id, ErrUnknown)
	}
	var q sharedQuestion
	if err := json.Unmarshal(raw, &q); err != nil || time.Now().After(q.Request.Deadline) {
		return fmt.Errorf("reply to %s: %w", id, ErrAnswered)
	}
	b, _ := json.Marshal(r)
	if err := session.Put(ctx, sh.store, sharedSession, answerNS, id, b); err != nil {
		return fmt.Errorf("reply to %s: store the answer: %w; answer again", id, err)
	}
	if err := sh.notifier.Notify(ctx, sharedAnswers, id); err != nil {
		ib.log.Warn("inbox answer stored but not notified; the replica holding the call reads it when its listener reconnects", "id", id, "err", err)
	}
	deadline := time.Now().Add(ackTimeout)
	for time.Now().Before(deadline) {
		if _, waiting, err := sh.store.Get(ctx, sharedSession, answerNS, id); err == nil && !waiting {
			ib.log.Info("permission request answered through another replica's inbox", "id", id, "session", q.Request.SessionID, "reply", r.Kind)
			ib.changed()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, ok := take(ctx, sh.store, answerNS, id); !ok {
		return nil // taken at the last moment
	}
	// Nobody holds the call any more (its replica drained or died): keep
	// the answer for the call made again.
	ib.mu.Lock()
	reg := ib.reg
	ib.mu.Unlock()
	if reg == nil {
		return fmt.Errorf("reply to %s: the replica that asked is gone and this inbox has no registry to record the answer in", id)
	}
	if err := reg.Permissions().RecordAnswer(ctx, q.Ask, r); err != nil {
		return fmt.Errorf("reply to %s: the replica that asked is gone, and the answer could not be recorded: %w; answer again when the call is made again", id, err)
	}
	ib.log.Info("permission answer recorded for the retry: the replica that asked is gone", "id", id, "session", q.Request.SessionID, "reply", r.Kind)
	ib.changed()
	return nil
}

// localPending is Pending without the other replicas' questions.
func (ib *Inbox) localPending() []Request {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	out := make([]Request, 0, len(ib.pending))
	for _, p := range ib.pending {
		if !p.answered {
			out = append(out, p.req)
		}
	}
	return out
}

// withShared adds the other replicas' questions to local.
func (ib *Inbox) withShared(local []Request) []Request {
	for _, r := range ib.listShared(context.Background()) {
		if !slices.ContainsFunc(local, func(l Request) bool { return l.ID == r.ID }) {
			local = append(local, r)
		}
	}
	return local
}

// take deletes key of ns and returns what it held, in one transaction.
func take(ctx context.Context, store session.Store, ns, key string) ([]byte, bool) {
	var out []byte
	var took bool
	err := store.Update(ctx, sharedSession, ns, key, func(old []byte, exists bool) ([]byte, error) {
		out, took = old, exists
		return nil, nil
	})
	return out, err == nil && took
}
