package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/session"
)

// TranscriptNamespace is the session-store namespace holding a session's
// conversation. Keys:
//
//   - "info": the session's Info (JSON);
//   - "msg/<seq>": each Message, seq a zero-padded counter so the store's
//     key order is conversation order;
//   - "tool/<callID>": each call's ToolState, rewritten as it moves from
//     running to completed or error.
const TranscriptNamespace = "transcript"

const (
	keyInfo      = "info"
	prefixMsg    = "msg/"
	prefixTool   = "tool/"
	msgKeyFormat = prefixMsg + "%010d"
)

// Roles of transcript messages.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Info describes a session.
type Info struct {
	ID string `json:"id"`
	// ParentID is the session whose task call started this one ("" for a
	// top-level session).
	ParentID string `json:"parentID,omitempty"`
	Agent    string `json:"agent,omitempty"`
	Title    string `json:"title,omitempty"`
	Created  int64  `json:"created"`
}

// Message is one entry of the conversation, in the shape the Chat
// Completions API needs to replay it.
type Message struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	// Text is the user's prompt, the model's answer, or for a tool message
	// exactly what the model was sent as the call's result.
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// CallID is the call a tool message answers.
	CallID string `json:"callID,omitempty"`
	// Attachments are images a tool returned, replayed to the model in a
	// user message (tool messages carry text only).
	Attachments []runtime.Attachment `json:"attachments,omitempty"`
	Agent       string               `json:"agent,omitempty"`
	Model       string               `json:"model,omitempty"`
	Time        int64                `json:"time"`
}

// ToolCall is a call the model asked for, as it asked for it.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolState is a call's recorded state.
type ToolState struct {
	CallID       string               `json:"callID"`
	MessageID    string               `json:"messageID"`
	Tool         string               `json:"tool"`
	RepairedFrom string               `json:"repairedFrom,omitempty"`
	Input        json.RawMessage      `json:"input,omitempty"`
	Status       string               `json:"status"`
	Title        string               `json:"title,omitempty"`
	Output       string               `json:"output,omitempty"`
	Error        string               `json:"error,omitempty"`
	Metadata     map[string]any       `json:"metadata,omitempty"`
	Attachments  []runtime.Attachment `json:"attachments,omitempty"`
	Time         Timing               `json:"time"`
}

// transcripts reads and writes conversations in the session store.
type transcripts struct {
	store session.Store
}

func (t *transcripts) put(ctx context.Context, sid, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode transcript %s of session %s: %w", key, sid, err)
	}
	if err := session.Put(ctx, t.store, sid, TranscriptNamespace, key, b); err != nil {
		return fmt.Errorf("save transcript of session %s: %w", sid, err)
	}
	return nil
}

func (t *transcripts) list(ctx context.Context, sid string) ([]session.KV, error) {
	kvs, err := t.store.List(ctx, sid, TranscriptNamespace)
	if err != nil {
		return nil, fmt.Errorf("load transcript of session %s: %w", sid, err)
	}
	return kvs, nil
}

// Transcript is a session's stored conversation.
type Transcript struct {
	Info     Info
	Messages []Message
	Tools    map[string]ToolState // by call id
	// exists reports whether anything was stored for the session.
	exists bool
}

// load reads a session's transcript; an unknown session gives an empty one.
func (t *transcripts) load(ctx context.Context, sid string) (*Transcript, error) {
	kvs, err := t.list(ctx, sid)
	if err != nil {
		return nil, err
	}
	tr := &Transcript{Tools: map[string]ToolState{}, exists: len(kvs) > 0}
	for _, kv := range kvs {
		var err error
		switch {
		case kv.Key == keyInfo:
			err = json.Unmarshal(kv.Value, &tr.Info)
		case strings.HasPrefix(kv.Key, prefixMsg):
			var m Message
			if err = json.Unmarshal(kv.Value, &m); err == nil {
				tr.Messages = append(tr.Messages, m)
			}
		case strings.HasPrefix(kv.Key, prefixTool):
			var s ToolState
			if err = json.Unmarshal(kv.Value, &s); err == nil {
				tr.Tools[s.CallID] = s
			}
		}
		if err != nil {
			return nil, fmt.Errorf("load transcript of session %s: entry %s: %w; start a new session", sid, kv.Key, err)
		}
	}
	return tr, nil
}

// Transcript returns a session's stored conversation and tool states.
func (r *Runner) Transcript(ctx context.Context, sessionID string) (*Transcript, error) {
	return r.transcripts.load(ctx, sessionID)
}

// appendMessage stores m as the next message of the session.
func (t *transcripts) appendMessage(ctx context.Context, sid string, tr *Transcript, m Message) error {
	tr.Messages = append(tr.Messages, m)
	return t.put(ctx, sid, fmt.Sprintf(msgKeyFormat, len(tr.Messages)), m)
}

func (t *transcripts) putTool(ctx context.Context, sid string, s ToolState) error {
	return t.put(ctx, sid, prefixTool+s.CallID, s)
}
