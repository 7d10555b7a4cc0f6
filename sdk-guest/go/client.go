package tool

import (
	"encoding/json"
	"errors"
	"fmt"
)

// SampleRequest asks the caller's model for one message. MaxTokens is
// required (1 to 32000).
type SampleRequest struct {
	Messages      []SampleMessage `json:"messages"`
	SystemPrompt  string          `json:"systemPrompt,omitempty"`
	MaxTokens     int64           `json:"maxTokens"`
	Temperature   float64         `json:"temperature,omitempty"`
	StopSequences []string        `json:"stopSequences,omitempty"`
}

// SampleMessage is one message: Role "user" or "assistant".
type SampleMessage struct {
	Role    string        `json:"role"`
	Content SampleContent `json:"content"`
}

// SampleContent is text (Type "text") or base64 image or audio data.
type SampleContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
}

// SampleResult is the model's message and the model's name.
type SampleResult struct {
	Role       string        `json:"role"`
	Content    SampleContent `json:"content"`
	Model      string        `json:"model"`
	StopReason string        `json:"stopReason,omitempty"`
}

// Sample asks the model of the client that called the tool (an MCP
// client with sampling) for one message. The tool must be granted it:
// "wasm": {"<tool>": {"sampling": true}}. An error means the client could
// not or would not answer; return it or work without.
func (c *Context) Sample(req SampleRequest) (SampleResult, error) {
	payload, err := json.Marshal(req)
	if err != nil {
		return SampleResult{}, fmt.Errorf("sample: %w", err)
	}
	var r struct {
		SampleResult
		Error string `json:"error"`
	}
	if err := json.Unmarshal(callHost(fnSample, payload), &r); err != nil {
		return SampleResult{}, fmt.Errorf("toolhost: malformed sample response: %w", err)
	}
	if r.Error != "" {
		return SampleResult{}, errors.New(r.Error)
	}
	return r.SampleResult, nil
}

// ElicitResult is the person's answer: Action "accept" (with Content),
// "decline" or "cancel".
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicit asks the person behind the client to fill in a form: message
// explains why, schema is a flat JSON Schema object of strings, numbers,
// booleans and enums (with defaults). It blocks until they answer; the
// wait does not count against the tool's timeout. An error means the
// client cannot ask anyone.
func (c *Context) Elicit(message string, schema map[string]any) (ElicitResult, error) {
	payload, err := json.Marshal(map[string]any{"message": message, "requestedSchema": schema})
	if err != nil {
		return ElicitResult{}, fmt.Errorf("elicit: %w", err)
	}
	var r struct {
		ElicitResult
		Error string `json:"error"`
	}
	if err := json.Unmarshal(callHost(fnElicit, payload), &r); err != nil {
		return ElicitResult{}, fmt.Errorf("toolhost: malformed elicit response: %w", err)
	}
	if r.Error != "" {
		return ElicitResult{}, errors.New(r.Error)
	}
	return r.ElicitResult, nil
}
