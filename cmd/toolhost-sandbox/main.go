// Command toolhost-sandbox is the helper toolhost starts to confine one
// bash command: it restricts itself with Landlock (and the socket filter
// when the network is off) by the plan toolhost passes, then executes the
// shell. It links the sandbox package alone, so it starts in about a
// millisecond, where re-executing toolhost for that (the fallback) costs
// ten or more. Install it beside toolhost, from the same release or the
// same `go install` version: toolhost uses it only when it is in the same
// directory, has the same owner and is the same sandbox code (see
// internal/confine/sandbox, "The helper program"); otherwise toolhost confines
// the command itself, never runs it unconfined.
package main

import "github.com/toolhost/toolhost/internal/confine/sandbox"

func main() { sandbox.HelperMain() }
