package tool

import (
	"encoding/json"
	"fmt"
)

// HostError is a host function's answer when it did not run or failed:
// Kind is "unknown" (the host has no function of that name), "invalid"
// (the arguments are not what it takes), "unavailable" (called outside
// execute) or "failed" (it ran and returned an error). A permission
// refusal is a *PermissionError instead, as Ask's.
type HostError struct {
	Fn      string
	Kind    string
	Message string
}

func (e *HostError) Error() string { return e.Message }

// CallHost calls fn, a host function the program embedding toolhost
// added (hostfns.Define in its Go code), with args encoded as JSON, and
// decodes its result into out (a pointer; nil discards it). The host
// checks the function's permission first — rules, session approvals and
// a person when a rule says ask, as for Ask — so a refusal comes back as
// a *PermissionError: return it from the handler unchanged. The wait for
// a person does not count against the tool's timeout.
//
// It is one import, extism:host/user call, taking {"fn", "args"} and
// answering {"value"} or {"error", "kind"} (docs/hostfns.md), so a module
// that uses it loads on every toolhost, whatever functions that host has.
func (c *Context) CallHost(fn string, args any, out any) error {
	payload, err := json.Marshal(struct {
		Fn   string `json:"fn"`
		Args any    `json:"args"`
	}{fn, args})
	if err != nil {
		return fmt.Errorf("call %s: arguments: %w", fn, err)
	}
	var r struct {
		Value json.RawMessage `json:"value"`
		Error string          `json:"error"`
		Kind  string          `json:"kind"`
	}
	if err := json.Unmarshal(callHost(fnCall, payload), &r); err != nil {
		return fmt.Errorf("toolhost: malformed call response: %w", err)
	}
	switch r.Kind {
	case "":
	case "denied", "rejected", "corrected":
		return &PermissionError{Kind: r.Kind, Message: r.Error}
	default:
		return &HostError{Fn: fn, Kind: r.Kind, Message: r.Error}
	}
	if r.Error != "" {
		return &HostError{Fn: fn, Kind: "failed", Message: r.Error}
	}
	if out == nil || len(r.Value) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.Value, out); err != nil {
		return fmt.Errorf("call %s: result: %w", fn, err)
	}
	return nil
}
