//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen

// Command test is the wasm module of the MCP conformance fixtures: built
// as .toolhost/tool/test.wasm, it provides the test_* tools the
// @modelcontextprotocol/conformance server scenarios call. Each one uses
// an ordinary part of the toolhost ABI — attachments for images, audio and
// embedded resources, log, metadata for progress, sample and elicit — so
// the suite checks how toolhost turns those into MCP, not a special case.
//
// test_sampling needs the grant "wasm": {"test": {"sampling": true}},
// which the folder's .toolhost/toolhost.json gives.
package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type none struct{}

// redPixel is a 1×1 red PNG.
const redPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

func image() tool.Attachment {
	return tool.Attachment{MIME: "image/png", URL: "data:image/png;base64," + redPixel, Filename: "red.png"}
}

// wav is a tenth of a second of silence: 8 kHz, 8-bit mono PCM.
func wav() []byte {
	const rate, n = 8000, 800
	b := make([]byte, 44+n)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], rate)
	binary.LittleEndian.PutUint32(b[28:], rate) // bytes per second
	binary.LittleEndian.PutUint16(b[32:], 1)    // block align
	binary.LittleEndian.PutUint16(b[34:], 8)    // bits per sample
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], n)
	for i := 44; i < len(b); i++ {
		b[i] = 128 // silence in unsigned 8-bit PCM
	}
	return b
}

func dataURL(mime string, b []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
}

var _ = tool.Define("simple_text", "Returns a simple text response.",
	func(*tool.Context, none) (tool.Result, error) {
		return tool.Text("This is a simple text response for testing."), nil
	})

var _ = tool.Define("image_content", "Returns a 1x1 red PNG image.",
	func(*tool.Context, none) (tool.Result, error) {
		return tool.Result{Output: "A red pixel.", Attachments: []tool.Attachment{image()}}, nil
	})

var _ = tool.Define("audio_content", "Returns a short WAV clip of silence.",
	func(*tool.Context, none) (tool.Result, error) {
		return tool.Result{Output: "A tenth of a second of silence.", Attachments: []tool.Attachment{{MIME: "audio/wav", URL: dataURL("audio/wav", wav()), Filename: "silence.wav"}}}, nil
	})

var _ = tool.Define("embedded_resource", "Returns an embedded text resource.",
	func(*tool.Context, none) (tool.Result, error) {
		text := "This is an embedded resource content."
		return tool.Result{Output: "An embedded resource.", Attachments: []tool.Attachment{{MIME: "text/plain", URL: dataURL("text/plain", []byte(text)), Filename: "embedded-resource.txt"}}}, nil
	})

var _ = tool.Define("multiple_content_types", "Returns text, an image and a JSON resource.",
	func(*tool.Context, none) (tool.Result, error) {
		data, _ := json.Marshal(map[string]any{"test": "data", "value": 123})
		return tool.Result{Output: "Multiple content types test:", Attachments: []tool.Attachment{
			image(),
			{MIME: "application/json", URL: dataURL("application/json", data), Filename: "mixed-content.json"},
		}}, nil
	})

var _ = tool.Define("tool_with_logging", "Logs three lines while it runs.",
	func(ctx *tool.Context, _ none) (tool.Result, error) {
		ctx.Log.Info("Tool execution started")
		ctx.Log.Info("Tool processing data")
		ctx.Log.Info("Tool execution completed")
		return tool.Text("Logged three messages."), nil
	})

var _ = tool.Define("error_handling", "Always fails.",
	func(*tool.Context, none) (tool.Result, error) {
		return tool.Result{}, errors.New("This tool intentionally returns an error for testing")
	})

var _ = tool.Define("tool_with_progress", "Reports progress three times: 0, 50 and 100 of 100.",
	func(ctx *tool.Context, _ none) (tool.Result, error) {
		for _, p := range []int{0, 50, 100} {
			ctx.Metadata(fmt.Sprintf("%d/100", p), map[string]any{"progress": p, "total": 100})
		}
		return tool.Text("Progress reported."), nil
	})

type sampleArgs struct {
	Prompt string `json:"prompt" jsonschema:"description=The prompt to send to the model"`
}

var _ = tool.Define("sampling", "Asks the client's model to answer a prompt.",
	func(ctx *tool.Context, a sampleArgs) (tool.Result, error) {
		res, err := ctx.Sample(tool.SampleRequest{
			Messages:  []tool.SampleMessage{{Role: "user", Content: tool.SampleContent{Type: "text", Text: a.Prompt}}},
			MaxTokens: 100,
		})
		if err != nil {
			return tool.Result{}, err
		}
		return tool.Text("LLM response: " + res.Content.Text), nil
	})

type elicitArgs struct {
	Message string `json:"message" jsonschema:"description=The message to show the user"`
}

func answer(res tool.ElicitResult) tool.Result {
	content, _ := json.Marshal(res.Content)
	return tool.Text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, content))
}

var _ = tool.Define("elicitation", "Asks the user for a user name and an email address.",
	func(ctx *tool.Context, a elicitArgs) (tool.Result, error) {
		res, err := ctx.Elicit(a.Message, map[string]any{
			"type": "object",
			"properties": map[string]any{
				"username": map[string]any{"type": "string", "description": "User's response"},
				"email":    map[string]any{"type": "string", "description": "User's email address"},
			},
			"required": []string{"username", "email"},
		})
		if err != nil {
			return tool.Result{}, err
		}
		content, _ := json.Marshal(res.Content)
		return tool.Text(fmt.Sprintf("User response: action=%s, content=%s", res.Action, content)), nil
	})

var _ = tool.Define("elicitation_sep1034_defaults", "Asks the user for values of every primitive type, each with a default.",
	func(ctx *tool.Context, _ none) (tool.Result, error) {
		res, err := ctx.Elicit("Please review the defaults", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
				"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
			},
		})
		if err != nil {
			return tool.Result{}, err
		}
		return answer(res), nil
	})

func titled(pairs ...string) []map[string]any {
	var out []map[string]any
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, map[string]any{"const": pairs[i], "title": pairs[i+1]})
	}
	return out
}

var _ = tool.Define("elicitation_sep1330_enums", "Asks the user to choose, in each of the enum forms.",
	func(ctx *tool.Context, _ none) (tool.Result, error) {
		res, err := ctx.Elicit("Please choose", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"untitledSingle": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}},
				"titledSingle":   map[string]any{"type": "string", "oneOf": titled("value1", "First Option", "value2", "Second Option", "value3", "Third Option")},
				"legacyEnum":     map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
				"titledMulti":    map[string]any{"type": "array", "items": map[string]any{"anyOf": titled("value1", "First Choice", "value2", "Second Choice", "value3", "Third Choice")}},
			},
		})
		if err != nil {
			return tool.Result{}, err
		}
		return answer(res), nil
	})

// main is empty: the module is a WASI reactor; the host calls its exports.
func main() {}
