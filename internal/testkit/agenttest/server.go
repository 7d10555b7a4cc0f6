// Package agenttest is a scripted OpenAI-compatible Chat Completions server
// for tests of the agent loop. It speaks the streaming wire format exactly
// (Server-Sent Events of chat.completion.chunk objects, tool-call arguments
// split across chunks, a usage chunk, "data: [DONE]"), records every request
// it receives, and refuses conversations the real API would refuse (a tool
// call without a matching tool message), so a test fails where a real
// endpoint would.
//
// It listens on loopback only, via net/http/httptest.
package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Turn is one scripted model answer.
type Turn struct {
	// Text is streamed in pieces of ChunkSize bytes (default 4).
	Text      string
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" when there are calls, else "stop".
	FinishReason string
	ChunkSize    int
	// Status, when non-zero, answers with this HTTP status and an OpenAI
	// error body carrying ErrorMessage instead of a stream.
	Status       int
	ErrorMessage string
}

// ToolCall is a scripted call. Arguments are sent as given, so a test can
// send broken JSON.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Request is what the server received, decoded.
type Request struct {
	Model         string          `json:"model"`
	Stream        bool            `json:"stream"`
	Messages      []Message       `json:"messages"`
	Tools         []Tool          `json:"tools"`
	StreamOptions json.RawMessage `json:"stream_options"`
	Raw           json.RawMessage `json:"-"`
}

// Message is a received message; Content is a string or an array of parts.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []WireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// Text returns a string content, or the text parts of an array joined.
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// WireToolCall is a tool call in an assistant message.
type WireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Tool is a received function tool.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      *bool           `json:"strict"`
	} `json:"function"`
}

// ToolNames lists the offered tools.
func (r Request) ToolNames() []string {
	out := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		out[i] = t.Function.Name
	}
	return out
}

// ToolResults maps each tool message's call id to its content.
func (r Request) ToolResults() map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

// Script decides the answer to the n-th request (from 0).
type Script func(n int, req Request) Turn

// Server is a running scripted endpoint.
type Server struct {
	// URL is the API root to use as base URL: "http://127.0.0.1:port/v1/".
	URL string

	srv    *httptest.Server
	script Script

	mu       sync.Mutex
	requests []Request
	problems []string
}

// New starts a server answering with script; it is closed when the test
// ends, and the test fails if the server saw a request the real API would
// have refused.
func New(t testing.TB, script Script) *Server {
	s := &Server{script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1/"
	t.Cleanup(func() {
		s.srv.Close()
		for _, p := range s.Problems() {
			t.Errorf("model server: %s", p)
		}
	})
	return s
}

// Requests returns what the server received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Problems lists protocol violations seen so far.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s", r.Method, r.URL.Path))
		return
	}
	var req Request
	dec := json.NewDecoder(r.Body)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		writeError(w, http.StatusBadRequest, "body is not JSON: "+err.Error())
		return
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		writeError(w, http.StatusBadRequest, "body does not decode: "+err.Error())
		return
	}
	req.Raw = raw
	if msg := validate(req); msg != "" {
		s.mu.Lock()
		s.problems = append(s.problems, msg)
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	turn := s.script(n, req)
	if turn.Status != 0 {
		writeError(w, turn.Status, turn.ErrorMessage)
		return
	}
	s.stream(w, n, req, turn)
}

// validate applies the checks the real endpoint makes that a loop can get
// wrong: streaming requested, every tool call answered by a tool message
// with its id before the next non-tool message, no tool message without a
// call, tool schemas that are objects.
func validate(req Request) string {
	if !req.Stream {
		return "stream is not true"
	}
	if req.Model == "" {
		return "no model"
	}
	pending := map[string]bool{}
	for i, m := range req.Messages {
		switch m.Role {
		case "tool":
			if !pending[m.ToolCallID] {
				return fmt.Sprintf("messages[%d]: tool message for call %q that is not pending", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			continue
		}
		if len(pending) > 0 {
			return fmt.Sprintf("messages[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; missing %v", i, keys(pending))
		}
		if m.Role == "assistant" {
			for _, c := range m.ToolCalls {
				if c.ID == "" || c.Type != "function" {
					return fmt.Sprintf("messages[%d]: tool call without id or type function", i)
				}
				pending[c.ID] = true
			}
		}
	}
	if len(pending) > 0 {
		return fmt.Sprintf("conversation ends with unanswered tool calls %v", keys(pending))
	}
	for _, t := range req.Tools {
		var schema map[string]any
		if t.Type != "function" || t.Function.Name == "" || json.Unmarshal(t.Function.Parameters, &schema) != nil || schema["type"] != "object" {
			return fmt.Sprintf("tool %q: not a function with an object schema", t.Function.Name)
		}
	}
	return ""
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
}

// chunk is a chat.completion.chunk on the wire.
type chunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Choices           []chunkChoice `json:"choices"`
	Usage             *usage        `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role      string          `json:"role,omitempty"`
	Content   *string         `json:"content,omitempty"`
	ToolCalls []deltaToolCall `json:"tool_calls,omitempty"`
}

type deltaToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// stream writes turn as the API does: a role chunk, content pieces, then
// each call's header (id, name) followed by its arguments in pieces with
// the calls' pieces interleaved, a finish chunk, a usage chunk when asked,
// and [DONE].
func (s *Server) stream(w http.ResponseWriter, n int, req Request, turn Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	id := fmt.Sprintf("chatcmpl-test%d", n)
	send := func(choices []chunkChoice, u *usage) {
		b, _ := json.Marshal(chunk{ID: id, Object: "chat.completion.chunk", Created: 1700000000, Model: req.Model, SystemFingerprint: "fp_test", Choices: choices, Usage: u})
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	size := turn.ChunkSize
	if size <= 0 {
		size = 4
	}
	empty := ""
	send([]chunkChoice{{Delta: delta{Role: "assistant", Content: &empty}}}, nil)
	for _, piece := range split(turn.Text, size) {
		send([]chunkChoice{{Delta: delta{Content: &piece}}}, nil)
	}
	argPieces := make([][]string, len(turn.ToolCalls))
	for i, c := range turn.ToolCalls {
		d := deltaToolCall{Index: i, ID: c.ID, Type: "function"}
		d.Function.Name = c.Name
		send([]chunkChoice{{Delta: delta{ToolCalls: []deltaToolCall{d}}}}, nil)
		argPieces[i] = split(c.Arguments, 5)
	}
	for more := true; more; {
		more = false
		for i := range argPieces {
			if len(argPieces[i]) == 0 {
				continue
			}
			more = true
			d := deltaToolCall{Index: i}
			d.Function.Arguments = argPieces[i][0]
			argPieces[i] = argPieces[i][1:]
			send([]chunkChoice{{Delta: delta{ToolCalls: []deltaToolCall{d}}}}, nil)
		}
	}
	reason := turn.FinishReason
	if reason == "" {
		reason = "stop"
		if len(turn.ToolCalls) > 0 {
			reason = "tool_calls"
		}
	}
	send([]chunkChoice{{Delta: delta{}, FinishReason: &reason}}, nil)
	if strings.Contains(string(req.StreamOptions), `"include_usage":true`) {
		prompt := len(req.Raw) / 4
		completion := len(turn.Text)/4 + 10*len(turn.ToolCalls)
		send([]chunkChoice{}, &usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// split cuts s into pieces of at most n bytes, never inside a UTF-8
// sequence.
func split(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && i > 0 && s[i]&0xC0 == 0x80 {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
