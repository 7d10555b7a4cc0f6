// Command compat is a tool module in the mcp.run servlet / hyper-mcp v1
// shape, written against the bare Extism kernel as those plugins are: it
// exports describe and call and knows nothing of toolhost. Tools:
//   - greet {name}: text "Hello, <name>!"
//   - pixel: a 1x1 PNG as image content, and a caption
//   - fail: isError with a message
//   - whoami: the config value "user" (config_get), or "nobody"
package main

import (
	"encoding/json"

	"guests/raw"
)

//go:wasmimport extism:host/env config_get
func configGet(off uint64) uint64

//go:wasmimport extism:host/env length
func length(off uint64) uint64

//go:wasmimport extism:host/env load_u8
func loadU8(off uint64) uint32

func config(key string) string {
	k := raw.Alloc(uint64(len(key)))
	for i, c := range []byte(key) {
		raw.StoreU8(k+uint64(i), uint32(c))
	}
	v := configGet(k)
	if v == 0 {
		return ""
	}
	b := make([]byte, length(v))
	for i := range b {
		b[i] = byte(loadU8(v + uint64(i)))
	}
	return string(b)
}

const describeJSON = `{"tools":[
 {"name":"greet","description":"Greet someone by name.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},
 {"name":"pixel","description":"Return a tiny image.","inputSchema":{"type":"object","properties":{}}},
 {"name":"fail","description":"Always fails.","inputSchema":{"type":"object"}},
 {"name":"whoami","description":"Say who the configured user is.","inputSchema":{"type":"object"}}
]}`

//go:wasmexport describe
func describe() int32 {
	raw.Output([]byte(describeJSON))
	return 0
}

type content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

//go:wasmexport call
func call() int32 {
	var req struct {
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(raw.Input(), &req); err != nil {
		return raw.Fail(err.Error())
	}
	var res struct {
		Content []content `json:"content"`
		IsError bool      `json:"isError,omitempty"`
	}
	switch req.Params.Name {
	case "greet":
		res.Content = []content{{Type: "text", Text: "Hello, " + req.Params.Arguments["name"] + "!"}}
	case "pixel":
		res.Content = []content{
			{Type: "text", Text: "a red pixel"},
			{Type: "image", MimeType: "image/png", Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="},
		}
	case "fail":
		res.Content, res.IsError = []content{{Type: "text", Text: "the service said no"}}, true
	case "whoami":
		u := config("user")
		if u == "" {
			u = "nobody"
		}
		res.Content = []content{{Type: "text", Text: u}}
	default:
		return raw.Fail("unknown tool " + req.Params.Name)
	}
	out, _ := json.Marshal(res)
	raw.Output(out)
	return 0
}

func main() {}
