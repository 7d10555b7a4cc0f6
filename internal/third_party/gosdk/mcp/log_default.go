// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

// toolhost patch 5 (README.md): a log message a server sends whether or
// not the client set a level.

package mcp

import "context"

// LogByDefault sends a log message to the client as [ServerSession.Log]
// does, except that a client which never set a level (logging/setLevel, or
// the request's logLevel) gets it too: the specification lets the server
// choose what to send then, and most clients never set one. A level the
// client did set still filters. For the few messages a person must see
// (a call waiting for their answer), not for chatter.
func (ss *ServerSession) LogByDefault(ctx context.Context, params *LoggingMessageParams) error {
	logLevel, ok := logLevelFromContext(ctx)
	if !ok {
		ss.mu.Lock()
		logLevel = ss.state.LogLevel
		ss.mu.Unlock()
	}
	if logLevel != "" && compareLevels(params.Level, logLevel) < 0 {
		return nil
	}
	return handleNotify(ctx, notificationLoggingMessage, newServerRequest(ss, orZero[Params](params)))
}
