package hostfns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/runtime"
)

// MaxSampleTokens caps the maxTokens a guest may ask of the client's
// model in one sample call.
const MaxSampleTokens = 32000

// MaxSampleRequest caps one sample request's JSON, prompt and images
// included: what a client is sent must fit a model's context and a
// client's message limit, and a guest must not make the host hold and
// forward its whole memory. It is checked before the request is decoded.
const MaxSampleRequest = 8 << 20

// SampleReply is the JSON sample returns: the model's answer, or Error
// when it could not be had (the client cannot sample, the person refused,
// the model failed) — an ordinary answer the guest handles.
type SampleReply struct {
	*runtime.SampleResult
	Error string `json:"error,omitempty"`
}

// runSample is sample: it asks the model of the client the call comes from for one message
// (MCP sampling/createMessage), for a tool that needs a model's judgement
// (summarise, classify) without holding an API key of its own. The client
// decides which model answers and may show the request to its user first.
//
//	(import "extism:host/user" "sample" (func (param i64) (result i64)))
//
// JS tools call it as context.sample(request) and Python tools as
// ctx.sample(messages, max_tokens, …), over their host channel (Script);
// the request, the grant, the limits and the error texts are these.
//
// Parameter: offset of a block holding runtime.SampleRequest JSON
// ({"messages": [{"role": "user", "content": {"type": "text", "text":
// "…"}}], "maxTokens": 100, …}). Result: offset of a new block holding
// SampleReply JSON: {"role", "content", "model", "stopReason"} or
// {"error": "…"}. The guest's timeout clock is stopped while the client
// answers.
//
// Sampling spends the user's model budget, so a tool — module, JS or
// Python — must be granted it ("wasm": {"<tool>": {"sampling": true}});
// without the grant, and outside execute, the call aborts a wasm guest
// (a script tool gets it thrown) with the key to set. A malformed or
// oversized request is refused the same way.
func runSample(ctx context.Context, c *Call, raw []byte) (any, error) {
	if c.Context == nil {
		return nil, errors.New("sample is only available while executing a call, not in description or schema")
	}
	if !c.Sampling {
		key := c.ConfigKey
		if key == "" {
			key = "wasm." + c.Tool
		}
		return nil, fmt.Errorf("tool %s may not sample the client's model: grant it with %q: true under %q in toolhost.json", c.Tool, "sampling", key)
	}
	if len(raw) > MaxSampleRequest {
		return nil, fmt.Errorf("request is over the %d-byte limit; send a shorter prompt or smaller images", MaxSampleRequest)
	}
	var req runtime.SampleRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("request is not sample request JSON: %w", err)
	}
	if err := checkSample(req); err != nil {
		return nil, err
	}
	var out SampleReply
	res, err := func() (runtime.SampleResult, error) {
		if c.Pause != nil {
			defer c.Pause()()
		}
		return c.Context.Sample(ctx, req)
	}()
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		out.Error = err.Error()
	} else {
		out.SampleResult = &res
	}
	return out, nil
}

// checkSample refuses requests no client should be sent.
func checkSample(req runtime.SampleRequest) error {
	if len(req.Messages) == 0 {
		return errors.New(`request has no "messages"`)
	}
	if req.MaxTokens <= 0 || req.MaxTokens > MaxSampleTokens {
		return fmt.Errorf(`"maxTokens" is %d; give 1 to %d`, req.MaxTokens, MaxSampleTokens)
	}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf(`message %d: role %q: use "user" or "assistant"`, i, m.Role)
		}
		switch m.Content.Type {
		case "text":
		case "image", "audio":
			if m.Content.Data == "" || m.Content.MIMEType == "" {
				return fmt.Errorf(`message %d: %s content needs "data" (base64) and "mimeType"`, i, m.Content.Type)
			}
		default:
			return fmt.Errorf(`message %d: content type %q: use "text", "image" or "audio"`, i, m.Content.Type)
		}
	}
	return nil
}
