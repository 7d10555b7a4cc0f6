package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// The exports of an mcp.run servlet or hyper-mcp v1 plugin: describe
// lists MCP tools, call runs one.
const (
	exportDescribe = "describe"
	exportCall     = "call"
)

// compatMeta is one tool a describe export listed.
type compatMeta struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"inputSchema"`
}

// parseDescribe reads describe's output: {"tools": [{name, description,
// inputSchema}]} (MCP's ListToolsResult).
func parseDescribe(prefix string, out []byte) ([]compatMeta, error) {
	var r struct {
		Tools []compatMeta `json:"tools"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf(`describe returned something that is not {"tools": [...]}: %w`, err)
	}
	if len(r.Tools) == 0 {
		return nil, fmt.Errorf("describe listed no tools")
	}
	seen := map[string]bool{}
	for i, t := range r.Tools {
		id := prefix + "_" + t.Name
		if !validID().MatchString(id) {
			return nil, fmt.Errorf("describe: tool id %q is not a valid tool name for model APIs (%s)", id, validID())
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("describe lists the tool %s twice", t.Name)
		}
		seen[t.Name] = true
		if len(t.Schema) == 0 || string(t.Schema) == "null" {
			r.Tools[i].Schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if err := checkSchema(id, r.Tools[i].Schema); err != nil {
			return nil, err
		}
	}
	return r.Tools, nil
}

// compatTool is one tool of an mcp.run/hyper-mcp module, called through
// its call export with MCP's CallToolRequest shape.
type compatTool struct {
	id     string
	module *module
	meta   compatMeta
}

// ID returns <plugin>_<tool>.
func (t *compatTool) ID() string { return t.id }

// Init returns the description and schema describe gave.
func (t *compatTool) Init(context.Context, runtime.InitContext) (*runtime.Definition, error) {
	return &runtime.Definition{Description: t.meta.Description, Parameters: t.meta.Schema, Execute: t.execute}, nil
}

// Source says the tool comes from a plugin.
func (t *compatTool) Source() runtime.Source { return runtime.SourcePlugin }

// Traits: a describe/call tool declares nothing; the gate always asks.
func (t *compatTool) Traits() runtime.Traits { return runtime.Traits{Claimed: true} }

// callRequest is MCP's CallToolRequest as these modules read it.
type callRequest struct {
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

// callResult is MCP's CallToolResult.
type callResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
		Resource *struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Blob     string `json:"blob"`
		} `json:"resource"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (t *compatTool) execute(ctx context.Context, args json.RawMessage, tc *runtime.Context) (runtime.Result, error) {
	var req callRequest
	req.Params.Name = t.meta.Name
	req.Params.Arguments = args
	if len(args) == 0 {
		req.Params.Arguments = json.RawMessage("{}")
	}
	input, _ := json.Marshal(req)
	out, err := t.module.invoke(ctx, t.id, exportCall, input, tc, 0, "")
	if err != nil {
		return runtime.Result{}, err
	}
	return parseCallResult(t.id, out)
}

// parseCallResult turns a CallToolResult into a toolhost result: text
// becomes output, images and blobs become attachments, isError a tool
// error carrying the text.
func parseCallResult(id string, out []byte) (runtime.Result, error) {
	var r callResult
	if err := json.Unmarshal(out, &r); err != nil {
		return runtime.Result{}, fmt.Errorf(`%s: call returned something that is not {"content": [...]}: %w`, id, err)
	}
	var texts []string
	res := runtime.Result{Metadata: map[string]any{}}
	for _, c := range r.Content {
		switch {
		case c.Type == "text":
			texts = append(texts, c.Text)
		case (c.Type == "image" || c.Type == "audio") && c.Data != "":
			res.Attachments = append(res.Attachments, runtime.Attachment{MIME: c.MimeType, URL: "data:" + c.MimeType + ";base64," + c.Data})
		case c.Type == "resource" && c.Resource != nil:
			switch {
			case c.Resource.Text != "":
				texts = append(texts, c.Resource.Text)
			case c.Resource.Blob != "":
				res.Attachments = append(res.Attachments, runtime.Attachment{MIME: c.Resource.MimeType, URL: "data:" + c.Resource.MimeType + ";base64," + c.Resource.Blob, Filename: c.Resource.URI})
			}
		}
	}
	res.Output = strings.Join(texts, "\n")
	if r.IsError {
		msg := res.Output
		if msg == "" {
			msg = id + " failed without a message"
		}
		return runtime.Result{}, &GuestError{Tool: id, Message: msg}
	}
	return res, nil
}

var _ runtime.Tool = (*compatTool)(nil)

// GrantFile is the tool as "wasm" grants see it (config.Config.WasmFor).
func (t *compatTool) GrantFile() config.ToolFile { return t.module.grantFile(t.id) }
