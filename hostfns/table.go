package hostfns

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// runFunc is one host function's Go implementation, as every engine
// shares it: the guest's JSON argument in, a value to send back as JSON
// out (nil: no reply). An error means the request itself could not be
// served — malformed, outside execute, not granted, the call cancelled:
// a wasm guest is aborted with it, a script tool gets it thrown.
type runFunc func(ctx context.Context, c *Call, arg []byte) (any, error)

// entry is one row of the table: a host function, what governs it, its
// JSON shapes (documentation; the types are in this package) and its
// implementation.
type entry struct {
	name    string
	governs string // what decides whether a call may run
	arg     string // the JSON the guest passes
	result  string // the JSON it gets back
	run     runFunc
	guests  guests // which guests import it
}

// guests says which kinds of guest a table function is offered to.
type guests uint8

const (
	wasmGuests   guests = 1 << iota // wasm modules, in Namespace (Functions)
	scriptGuests                    // JS and Python tools, over their host channel (Script)
	allGuests    = wasmGuests | scriptGuests
)

// table is toolhost's host functions that take and return JSON, each
// defined once. wasm guests import those for wasmGuests by name in
// Namespace (Functions adapts run to the Extism ABI); JS and Python tools
// reach those for scriptGuests through their host channel (Script).
// fetch is http_request in script form: wasm guests reach the same
// Call.fetch through Extism's kernel http_request (http.go), as they log
// through log_info … too (log.go); state_get and state_set are wasm's
// alone. sample and elicit answer every guest with the same reply JSON
// (SampleReply, ElicitReply); a script's API turns its "error" into a
// thrown error, as a wasm guest's SDK turns it into an error value.
var table = []entry{
	{NameAsk, "the permission rules it asks", "AskRequest", "AskResponse (a script tool gets a refusal thrown)", runAsk, allGuests},
	{NameMetadata, "nothing: it only shows progress", "MetadataUpdate", "none", runMetadata, allGuests},
	{NameCall, "the called function's Permission, per call", "CallRequest", "CallReply", runCall, allGuests},
	{NameLog, "nothing: every line is escaped and capped (CleanLogMessage)", "LogEntry (wasm: or plain text)", "none", runLog, allGuests},
	{NameFetch, "the tool's allowed_hosts (HTTPPolicy), on the address dialled", "FetchRequest", "FetchReply", runFetch, scriptGuests},
	{NameSample, `the tool's "sampling" grant; MaxSampleTokens, MaxSampleRequest`, "runtime.SampleRequest", "SampleReply", runSample, allGuests},
	{NameElicit, "nothing: a person answers; MaxElicitRequest", "runtime.ElicitRequest", "ElicitReply", runElicit, allGuests},
}

// Reserved lists the names an embedder's function may not take: every
// host function toolhost gives guests, wasm or script, so a guest never
// wonders which of two "ask"s it reached.
func Reserved() []string {
	names := []string{NameLog, NameStateGet, NameStateSet, NameHTTPRequest, NameHTTPStatusCode, NameHTTPHeaders, NameGetLogLevel,
		NameLogTrace, NameLogDebug, NameLogInfo, NameLogWarn, NameLogError,
		// script tools' own ops (package js's Bridge)
		"random", "url", "fs"}
	for _, e := range table {
		names = append(names, e.name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// wasmFunc adapts a table entry to the Extism ABI:
//
//	(import "extism:host/user" "<name>" (func (param i64) (result i64)))
//
// The parameter is the offset of the block holding the argument; the
// result is the offset of a new block holding the JSON reply, or 0 when
// there is none. An error aborts the guest.
func wasmFunc(e entry) func(ctx context.Context, stack []uint64) {
	return func(ctx context.Context, stack []uint64) {
		c := callOf(ctx, e.name)
		raw := readArg(c, e.name, stack)
		out, err := e.run(ctx, c, raw)
		if err != nil {
			fail(c, e.name, err)
		}
		if out == nil {
			stack[0] = 0
			return
		}
		b, err := json.Marshal(out)
		if err != nil {
			fail(c, e.name, fmt.Errorf("reply: %w", err))
		}
		reply(c, e.name, stack, b)
	}
}

// Script answers a script tool's (JS or Python) host call op with the
// shared implementation; handled is false for an op that is not one of
// the table's script functions (the engine answers those itself). The
// Call is built by the engine for the one host call, with its Pause.
//
// ask answers nil when allowed and the refusal (a permission error) as
// err; call answers its CallReply, which the prelude turns into a value
// or a thrown error carrying the kind.
func Script(ctx context.Context, c *Call, op string, arg json.RawMessage) (value any, handled bool, err error) {
	i := slices.IndexFunc(table, func(e entry) bool { return e.name == op && e.guests&scriptGuests != 0 })
	if i < 0 {
		return nil, false, nil
	}
	out, err := table[i].run(ctx, c, arg)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", op, err)
	}
	if r, ok := out.(AskResponse); ok {
		if r.OK {
			return nil, true, nil
		}
		return nil, true, c.PermissionError()
	}
	return out, true, nil
}
