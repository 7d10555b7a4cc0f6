// Copyright 2026 The toolhost Authors. Added to the Go MCP SDK's mcp
// package by toolhost; see third_party/go-sdk/README.md.

package mcp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/internal/jsonrpc2"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// InlineRunner is an optional interface of a [Connection]. RunsInline
// says which requests the goroutine that reads the connection may run
// itself, when no other request is being handled, instead of handing them
// to another goroutine: a hand-off costs a thread's wake-up, more than a
// brief request's own work. While it runs one, nothing is read from the
// connection, so every handler such a request reaches must be brief or
// call [Detach] first.
type InlineRunner interface {
	RunsInline(*jsonrpc.Request) bool
}

// Detach lets the connection read on while the calling handler goes on,
// when ctx is that of a request run inline (see [InlineRunner]); it does
// nothing otherwise. A handler must call it before it waits on anything
// but its own work — a person, a long computation. Requests to the peer
// (elicitation, sampling, roots) detach by themselves.
func Detach(ctx context.Context) { jsonrpc2.Detach(ctx) }
