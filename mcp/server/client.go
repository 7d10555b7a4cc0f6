package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime"
)

// clientOf is what the MCP client of a call can do for the running tool
// (runtime.Client), from what it declared at initialize: every client
// gets the tool's log lines as notifications/message (the SDK sends only
// those at or above the level the client set with logging/setLevel, and
// none before it sets one); a client with the sampling capability lends
// its model; one that can show forms in this session (the elicitation
// capability, under a protocol where the server may send requests) asks
// its user the tool's own questions. Under the sessionless 2026-07-28
// protocol the server sends no requests of its own, so tools get neither.
func clientOf(req *sdk.CallToolRequest, tool string) runtime.Client {
	ss := req.Session
	c := runtime.Client{Log: func(ctx context.Context, level slog.Level, msg string) {
		// Best effort: a client that went away stops getting lines.
		_ = ss.Log(ctx, &sdk.LoggingMessageParams{Level: mcpLevel(level), Logger: tool, Data: msg})
	}}
	if req.ProtocolVersion() >= roundTripVersion {
		return c
	}
	if caps := req.ClientCapabilities(); caps != nil && caps.Sampling != nil {
		c.Sampler = sessionSampler{ss}
	}
	if elicitMode(req) == elicitDirect {
		c.Elicitor = sessionElicitor{ss}
	}
	return c
}

// mcpLevel is the MCP (syslog) level of an slog level.
func mcpLevel(l slog.Level) sdk.LoggingLevel {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warning"
	case l >= slog.LevelInfo:
		return "info"
	}
	return "debug"
}

// sessionSampler asks the session's client with sampling/createMessage.
type sessionSampler struct{ ss *sdk.ServerSession }

func (s sessionSampler) Sample(ctx context.Context, req runtime.SampleRequest) (runtime.SampleResult, error) {
	p := &sdk.CreateMessageParams{
		MaxTokens:     req.MaxTokens,
		SystemPrompt:  req.SystemPrompt,
		Temperature:   req.Temperature,
		StopSequences: req.StopSequences,
	}
	for i, m := range req.Messages {
		c, err := toSDKContent(m.Content)
		if err != nil {
			return runtime.SampleResult{}, fmt.Errorf("sample: message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, &sdk.SamplingMessage{Role: sdk.Role(m.Role), Content: c})
	}
	res, err := s.ss.CreateMessage(ctx, p)
	if err != nil {
		return runtime.SampleResult{}, fmt.Errorf("sample the MCP client's model: %w", err)
	}
	out := runtime.SampleResult{Role: string(res.Role), Model: res.Model, StopReason: res.StopReason}
	switch c := res.Content.(type) {
	case *sdk.TextContent:
		out.Content = runtime.SampleContent{Type: "text", Text: c.Text}
	case *sdk.ImageContent:
		out.Content = runtime.SampleContent{Type: "image", Data: base64.StdEncoding.EncodeToString(c.Data), MIMEType: c.MIMEType}
	case *sdk.AudioContent:
		out.Content = runtime.SampleContent{Type: "audio", Data: base64.StdEncoding.EncodeToString(c.Data), MIMEType: c.MIMEType}
	default:
		return runtime.SampleResult{}, fmt.Errorf("sample the MCP client's model: the answer has content of type %T, which tools cannot take", res.Content)
	}
	return out, nil
}

func toSDKContent(c runtime.SampleContent) (sdk.Content, error) {
	switch c.Type {
	case "text":
		return &sdk.TextContent{Text: c.Text}, nil
	case "image", "audio":
		data, err := base64.StdEncoding.DecodeString(c.Data)
		if err != nil {
			return nil, fmt.Errorf("%s data is not base64: %w", c.Type, err)
		}
		if c.Type == "image" {
			return &sdk.ImageContent{Data: data, MIMEType: c.MIMEType}, nil
		}
		return &sdk.AudioContent{Data: data, MIMEType: c.MIMEType}, nil
	}
	return nil, fmt.Errorf("content type %q: use text, image or audio", c.Type)
}

// sessionElicitor asks the session's client with elicitation/create, in
// form mode. The SDK checks the schema (flat, primitive properties) before
// sending and the answer against it after, and fills in defaults.
type sessionElicitor struct{ ss *sdk.ServerSession }

func (e sessionElicitor) Elicit(ctx context.Context, req runtime.ElicitRequest) (runtime.ElicitResult, error) {
	if req.RequestedSchema == nil {
		return runtime.ElicitResult{}, errors.New("elicit: no requested schema")
	}
	res, err := e.ss.Elicit(ctx, &sdk.ElicitParams{Mode: "form", Message: req.Message, RequestedSchema: req.RequestedSchema})
	if err != nil {
		return runtime.ElicitResult{}, fmt.Errorf("ask the MCP client's user: %w", err)
	}
	return runtime.ElicitResult{Action: res.Action, Content: res.Content}, nil
}
