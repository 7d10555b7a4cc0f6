package runtime

import (
	"context"
	"errors"
	"log/slog"
)

// Client is what the front end a call comes from can do for a running
// tool besides taking its result: show its log lines, let it ask the
// client's model (sampling) and ask the person a question of the tool's
// own making (elicitation). Each ability is declared by being set; a front
// end without it leaves it nil, and a tool asking for it gets an error
// saying the client cannot (ErrNoSampling, ErrNoElicitation). The MCP
// server sets them from what the client declared at initialize; the CLI
// and the agent loop set none.
type Client struct {
	// Log receives the tool's log lines (besides the host's log), for a
	// client that shows them; nil drops them. It must not block for long.
	Log func(ctx context.Context, level slog.Level, msg string)
	// Sampler asks the client's model; nil: the client cannot.
	Sampler Sampler
	// Elicitor asks the person a question through the client; nil: it
	// cannot.
	Elicitor Elicitor
}

// Sampler asks the client's model for one message (MCP sampling/
// createMessage).
type Sampler interface {
	Sample(ctx context.Context, req SampleRequest) (SampleResult, error)
}

// Elicitor asks the person for structured input (MCP elicitation/create
// in form mode).
type Elicitor interface {
	Elicit(ctx context.Context, req ElicitRequest) (ElicitResult, error)
}

// SampleRequest is a request for one message from the client's model, in
// MCP's shape. The client may change any of it (a person reviews it) or
// refuse.
type SampleRequest struct {
	Messages      []SampleMessage `json:"messages"`
	SystemPrompt  string          `json:"systemPrompt,omitempty"`
	MaxTokens     int64           `json:"maxTokens"`
	Temperature   float64         `json:"temperature,omitempty"`
	StopSequences []string        `json:"stopSequences,omitempty"`
}

// SampleMessage is one message of a sampling conversation: role "user" or
// "assistant", and text or an image or audio clip.
type SampleMessage struct {
	Role    string        `json:"role"`
	Content SampleContent `json:"content"`
}

// SampleContent is a message's content: Type "text" with Text, or "image"
// / "audio" with base64 Data and MIMEType.
type SampleContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
}

// SampleResult is the model's answer and which model gave it.
type SampleResult struct {
	Role       string        `json:"role"`
	Content    SampleContent `json:"content"`
	Model      string        `json:"model"`
	StopReason string        `json:"stopReason,omitempty"`
}

// ElicitRequest asks the person for input: a message and a flat JSON
// Schema object of primitive properties (strings, numbers, booleans,
// enums), which the client turns into a form.
type ElicitRequest struct {
	Message         string         `json:"message"`
	RequestedSchema map[string]any `json:"requestedSchema"`
}

// ElicitResult is the person's answer: Action "accept" with Content, or
// "decline" or "cancel".
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Errors of a tool asking for an ability its front end lacks.
var (
	ErrNoSampling    = errors.New("the client of this call cannot sample (it did not declare the sampling capability); run the tool from an MCP client that supports sampling")
	ErrNoElicitation = errors.New("the client of this call cannot ask the user (it did not declare the elicitation capability); run the tool from an MCP client that supports elicitation")
)

// Sample asks the client's model; ErrNoSampling when the front end cannot.
func (c *Context) Sample(ctx context.Context, req SampleRequest) (SampleResult, error) {
	if c.Client.Sampler == nil {
		return SampleResult{}, ErrNoSampling
	}
	return c.Client.Sampler.Sample(ctx, req)
}

// Elicit asks the person through the client; ErrNoElicitation when the
// front end cannot.
func (c *Context) Elicit(ctx context.Context, req ElicitRequest) (ElicitResult, error) {
	if c.Client.Elicitor == nil {
		return ElicitResult{}, ErrNoElicitation
	}
	return c.Client.Elicitor.Elicit(ctx, req)
}

// ClientLog passes a tool's log line to the client, when it shows them.
func (c *Context) ClientLog(ctx context.Context, level slog.Level, msg string) {
	if c.Client.Log != nil {
		c.Client.Log(ctx, level, msg)
	}
}
