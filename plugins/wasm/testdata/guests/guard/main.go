// Command guard is the hook plugin of the plugin tests. For every tool
// call, whatever its source:
//   - tool_execute_before refuses a call whose string arguments contain
//     "forbidden", and rewrites the string argument values "alias.txt" to
//     "real.txt" and "ping" to "pong";
//   - tool_execute_after appends "\n[checked by guard]" to the output,
//     prefixes the title with "guard: " and sets metadata.guard = true;
//   - tool_definition appends " (guarded)" to every description;
//   - event logs "guard event <type> <tool>";
//   - a call whose args hold "hookpanic" makes the before hook trap, which
//     the host must report and skip.
package main

import (
	"encoding/json"
	"strings"

	"guests/raw"
)

type before struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

//go:wasmexport tool_execute_before
func toolExecuteBefore() int32 {
	var in before
	if err := json.Unmarshal(raw.Input(), &in); err != nil {
		return raw.Fail(err.Error())
	}
	changed := false
	for k, v := range in.Args {
		s, ok := v.(string)
		if !ok {
			continue
		}
		switch {
		case strings.Contains(s, "hookpanic"):
			panic("guard was told to panic")
		case strings.Contains(s, "forbidden"):
			out, _ := json.Marshal(map[string]string{"refuse": "guard: arguments of " + in.Tool + " may not contain forbidden"})
			raw.Output(out)
			return 0
		case s == "alias.txt":
			in.Args[k], changed = "real.txt", true
		case s == "ping":
			in.Args[k], changed = "pong", true
		}
	}
	if changed {
		out, _ := json.Marshal(map[string]any{"args": in.Args})
		raw.Output(out)
	}
	return 0
}

type after struct {
	Tool   string `json:"tool"`
	Result struct {
		Title  string `json:"title"`
		Output string `json:"output"`
	} `json:"result"`
	Error string `json:"error"`
}

//go:wasmexport tool_execute_after
func toolExecuteAfter() int32 {
	var in after
	if err := json.Unmarshal(raw.Input(), &in); err != nil {
		return raw.Fail(err.Error())
	}
	if in.Error != "" {
		return 0
	}
	out, _ := json.Marshal(map[string]any{
		"title":    "guard: " + in.Result.Title,
		"output":   in.Result.Output + "\n[checked by guard]",
		"metadata": map[string]any{"guard": true},
	})
	raw.Output(out)
	return 0
}

//go:wasmexport tool_definition
func toolDefinition() int32 {
	var in struct {
		Description string `json:"description"`
	}
	if err := json.Unmarshal(raw.Input(), &in); err != nil {
		return raw.Fail(err.Error())
	}
	out, _ := json.Marshal(map[string]string{"description": in.Description + " (guarded)"})
	raw.Output(out)
	return 0
}

//go:wasmexport event
func event() int32 {
	var in struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(raw.Input(), &in); err != nil {
		return raw.Fail(err.Error())
	}
	tool, _ := in.Properties["tool"].(string)
	raw.Log("guard event " + in.Type + " " + tool)
	return 0
}

func main() {}
