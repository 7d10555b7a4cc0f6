// Command stamp is a plugin with the two call hooks and nothing else, the
// shape the hook benchmark measures: tool_execute_before reads the call
// and leaves it unchanged, tool_execute_after appends "\n[stamped]" to the
// output. (guard, the test plugin, also takes events and definitions,
// which add guest calls of their own.)
package main

import (
	"encoding/json"

	"guests/raw"
)

//go:wasmexport tool_execute_before
func toolExecuteBefore() int32 {
	var in struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	}
	if err := json.Unmarshal(raw.Input(), &in); err != nil {
		return raw.Fail(err.Error())
	}
	return 0
}

//go:wasmexport tool_execute_after
func toolExecuteAfter() int32 {
	var in struct {
		Result struct {
			Output string `json:"output"`
		} `json:"result"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(raw.Input(), &in); err != nil {
		return raw.Fail(err.Error())
	}
	if in.Error != "" {
		return 0
	}
	out, _ := json.Marshal(map[string]any{"output": in.Result.Output + "\n[stamped]"})
	raw.Output(out)
	return 0
}

func main() {}
