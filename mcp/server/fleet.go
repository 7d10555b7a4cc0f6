package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/third_party/gosdk/auth"
	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
	"github.com/toolhost/toolhost/runtime/session"
)

// Sessions that follow the client, not the replica. Replicas of a fleet
// (--stateless on one shared store, behind a load balancer) serve each
// request wherever it lands, so an MCP session cannot live in one
// replica's memory. The fleet handler keeps it in the store instead:
//
//   - A request without an Mcp-Session-Id gets one, minted for the caller
//     that made the request (httpguard.CallerOf; the id carries an HMAC of
//     it, fleet_ids.go). For an initialize of a protocol before 2026-07-28
//     the store also keeps the client's initialize parameters (its info
//     and capabilities) under the id. The id goes back in the response's
//     Mcp-Session-Id header, which clients adopt: the go-sdk client does
//     on every protocol version, 2026-07-28 included, where the protocol
//     itself names no session.
//   - A request naming an id is served only for the caller it was minted
//     for; any other caller, or an id no replica minted, gets 404, as the
//     specification says of a session the server does not know, so the
//     client starts a new one. A guessed or stolen id reaches nothing.
//   - Before 2026-07-28 the request is served on a session rebuilt from
//     the stored parameters (sdk.ServerSessionState), so the tools see the
//     client's real capabilities: a client that declares elicitation is
//     asked (fleet_elicit.go), wherever its answer lands. From 2026-07-28
//     every request carries the client's info and capabilities itself,
//     and the go-sdk's stateless handler serves it as it is.
//
// Every call of the session is one toolhost session, "mcp_<id>": todos,
// read stamps and approvals follow the client across replicas. A client
// naming its own session in _meta (MetaSessionKey) still may; that session
// too is bound to the first caller that uses it (claimSession).

// Where the bindings live. An MCP session's record and a toolhost
// session's owner are kept inside the toolhost session they bind ("mcp_<id>"
// for an MCP session), so the retention sweep, which forgets a session
// once nothing in it has been written for a while (pgstore), forgets them
// with its data: the store does not fill with one record per connection
// ever opened, and a session swept and named again starts empty for
// whoever names it. (Tools' own state is in namespaces "wasm:<tool>", and
// no tool writes "toolhost:" ones.)
const (
	fleetStoreSession = "toolhost-mcp-sessions" // questions in flight (fleet_elicit.go); rows expire one by one
	fleetRecordNS     = "toolhost:mcp"          // in session "mcp_<id>": fleetRecordKey → JSON fleetRecord
	fleetRecordKey    = "session"
	fleetOwnerNS      = "toolhost:owner" // in each toolhost session a fleet serves: fleetOwnerKey → caller
	fleetOwnerKey     = "caller"
	// ownerCacheTTL is how long a replica trusts the owner it read: not
	// for ever, since a session swept by retention may be claimed anew.
	ownerCacheTTL   = time.Minute
	headerSessionID = "Mcp-Session-Id"
	headerProtocol  = "Mcp-Protocol-Version"
	// maxFleetBody bounds the request body the fleet handler reads to
	// learn what a request is (the go-sdk's own default limit).
	maxFleetBody = sdk.DefaultMaxRequestBodyBytes
	// maxOwnersCached bounds the owners a replica remembers.
	maxOwnersCached = 10000
)

// fleetRecord is an MCP session as the store keeps it.
type fleetRecord struct {
	Owner   string    `json:"owner"`
	Created time.Time `json:"created"`
	// State is what initialize established (protocols before
	// 2026-07-28); nil for sessions of the sessionless protocol.
	State *sdk.ServerSessionState `json:"state,omitempty"`
}

// fleet is the fleet handler of a Server.
type fleet struct {
	s     *Server
	store session.Store
	sdkh  http.Handler // the go-sdk's stateless handler

	// owners caches the owners read from the store (an owner never
	// changes once stored), up to maxOwnersCached, then starts over.
	ownersMu sync.Mutex
	owners   map[string]ownerSeen // toolhost session id → caller

	asks fleetAsks // fleet_elicit.go
	key  fleetKey  // fleet_ids.go
}

// ownerSeen is a session's owner as read at a time.
type ownerSeen struct {
	caller string
	at     time.Time
}

// fleetCtxKey carries the fleet session of a request to the tool handler.
type fleetCtxKey struct{}

// fleetConn is what a tool handler learns of the fleet session it serves.
type fleetConn struct {
	f  *fleet
	id string                         // the MCP session id
	tr *sdk.StreamableServerTransport // the transport serving this request; nil for 2026-07-28
}

func fleetOf(ctx context.Context) *fleetConn {
	c, _ := ctx.Value(fleetCtxKey{}).(*fleetConn)
	return c
}

// newFleet returns the fleet handler serving through sdkh.
func (s *Server) newFleet(store session.Store, sdkh http.Handler) *fleet {
	f := &fleet{s: s, store: store, sdkh: sdkh, owners: map[string]ownerSeen{}}
	f.asks.init()
	return f
}

func (f *fleet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	caller := httpguard.CallerOf(r.Context())
	id := r.Header.Get(headerSessionID)
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxFleetBody))
		if err != nil {
			http.Error(w, "read request: "+err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if id == "" {
		if r.Method != http.MethodPost || !asksSomething(body) {
			// Nothing to keep a session for (a GET, a notification,
			// a body that is not JSON-RPC): no record is stored.
			f.sdkh.ServeHTTP(w, r)
			return
		}
		var err error
		if id, err = f.mint(r.Context(), caller); err != nil {
			http.Error(w, "open an MCP session: "+err.Error()+"; retry", http.StatusServiceUnavailable)
			return
		}
		if p := initializeOf(body); p != nil && p.ProtocolVersion < roundTripVersion {
			rec := fleetRecord{Owner: caller, Created: time.Now().UTC(), State: &sdk.ServerSessionState{InitializeParams: p, InitializedParams: &sdk.InitializedParams{}, LogLevel: "info"}}
			if err := f.put(r.Context(), id, rec); err != nil {
				http.Error(w, "store the MCP session: "+err.Error()+"; retry", http.StatusServiceUnavailable)
				return
			}
		}
		w.Header().Set(headerSessionID, id)
		f.sdkh.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), fleetCtxKey{}, &fleetConn{f: f, id: id})))
		return
	}
	mine, err := f.owns(r.Context(), id, caller)
	if err != nil {
		http.Error(w, "check the MCP session: "+err.Error()+"; retry", http.StatusServiceUnavailable)
		return
	}
	if !mine {
		// Unknown and foreign alike: saying which would tell a guesser
		// that the id exists.
		notFound(w, id)
		return
	}
	switch r.Method {
	case http.MethodDelete:
		if err := session.Delete(r.Context(), f.store, "mcp_"+id, fleetRecordNS, fleetRecordKey); err != nil {
			http.Error(w, "delete the MCP session: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		// No standalone event stream: it would tie the client to one
		// replica. The go-sdk client carries on without it (405).
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "Method Not Allowed: this server keeps no event stream open; POST requests", http.StatusMethodNotAllowed)
		return
	}
	var rec *fleetRecord
	if r.Header.Get(headerProtocol) < roundTripVersion {
		if rec, err = f.get(r.Context(), id); err != nil {
			http.Error(w, "read the MCP session: "+err.Error()+"; retry", http.StatusServiceUnavailable)
			return
		}
		if rec != nil && rec.Owner != caller {
			notFound(w, id)
			return
		}
	}
	if rec == nil || rec.State == nil {
		// Protocol 2026-07-28, whose requests carry what initialize
		// did, or a session that never initialized here.
		f.sdkh.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), fleetCtxKey{}, &fleetConn{f: f, id: id})))
		return
	}
	if onlyResponses(body) {
		// The client's answer to a request of ours (elicitation): to the
		// replica that asked, wherever it is (fleet_elicit.go).
		f.deliver(w, r, id, body)
		return
	}
	f.serveLegacy(w, r, id, rec.State)
}

// notFound is the answer to a session id the caller may not use.
func notFound(w http.ResponseWriter, id string) {
	http.Error(w, "session not found: no MCP session "+clip(id)+" is open for this caller; initialize a new one", http.StatusNotFound)
}

// serveLegacy serves a request of a session of a protocol before
// 2026-07-28 on a session rebuilt from its stored state. The transport
// has the session's id, so the server may send requests to the client
// (elicitation) on the response stream of the call that asks.
func (f *fleet) serveLegacy(w http.ResponseWriter, r *http.Request, id string, state *sdk.ServerSessionState) {
	st := *state
	if v := r.Header.Get(headerProtocol); v != "" && st.InitializeParams != nil {
		p := *st.InitializeParams
		p.ProtocolVersion = v
		st.InitializeParams = &p
	}
	tr := &sdk.StreamableServerTransport{SessionID: id}
	ctx := context.WithValue(r.Context(), fleetCtxKey{}, &fleetConn{f: f, id: id, tr: tr})
	ss, err := f.s.sdk.Connect(ctx, tr, &sdk.ServerSessionOptions{State: &st})
	if err != nil {
		http.Error(w, "serve the MCP session: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer ss.Close()
	tr.ServeHTTP(w, r.WithContext(ctx))
}

func (f *fleet) put(ctx context.Context, id string, rec fleetRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	// In the session it binds, so retention forgets it with the
	// session's data; its owner is in its id (fleet_ids.go), so nothing
	// is claimed.
	return session.Put(ctx, f.store, "mcp_"+id, fleetRecordNS, fleetRecordKey, b)
}

// get reads an MCP session; nil when the store holds none under id.
func (f *fleet) get(ctx context.Context, id string) (*fleetRecord, error) {
	if len(id) > 200 {
		return nil, nil
	}
	raw, ok, err := f.store.Get(ctx, "mcp_"+id, fleetRecordNS, fleetRecordKey)
	if err != nil || !ok {
		return nil, err
	}
	var rec fleetRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, nil // unreadable: as if absent, never as anyone's
	}
	return &rec, nil
}

// errForeignSession refuses a call naming a toolhost session another
// caller opened.
var errForeignSession = errors.New("this toolhost session belongs to another caller (another bearer token or identity); name a session of your own in _meta \"" + MetaSessionKey + "\", or none")

// claim binds the toolhost session sid to caller, the first time anyone
// uses it, and refuses it to anyone else afterwards.
func (f *fleet) claim(ctx context.Context, sid, caller string) error {
	f.ownersMu.Lock()
	known, ok := f.owners[sid]
	f.ownersMu.Unlock()
	if ok && time.Since(known.at) < ownerCacheTTL {
		if known.caller != caller {
			return errForeignSession
		}
		return nil
	}
	var owner string
	err := f.store.Update(ctx, sid, fleetOwnerNS, fleetOwnerKey, func(old []byte, exists bool) ([]byte, error) {
		if exists {
			owner = string(old)
			return old, nil
		}
		owner = caller
		return []byte(caller), nil
	})
	if err != nil {
		return fmt.Errorf("check who owns session %s: %w; retry", clip(sid), err)
	}
	f.ownersMu.Lock()
	if len(f.owners) >= maxOwnersCached {
		clear(f.owners)
	}
	f.owners[sid] = ownerSeen{caller: owner, at: time.Now()}
	f.ownersMu.Unlock()
	if owner != caller {
		return errForeignSession
	}
	return nil
}

// claimSession is the check of a tools/call: the toolhost session it
// names must be its caller's. Outside a fleet (one stateful server with
// named callers) the owners are kept the same way, in the server's store;
// a call with no authenticated caller (stdio, loopback without a token)
// has nobody to tell apart and is not checked.
func (s *Server) claimSession(ctx context.Context, sid string) error {
	caller := httpguard.CallerOf(ctx)
	if c := fleetOf(ctx); c != nil {
		if sid == "mcp_"+c.id {
			// The MCP session's own, whose id names its owner
			// (fleet_ids.go): nothing to read or write.
			return nil
		}
		return c.f.claim(ctx, sid, caller)
	}
	if caller == "" {
		return nil
	}
	return s.claims().claim(ctx, sid, caller)
}

// bindSDKSessions binds each MCP session the go-sdk's stateful handler h
// opens to the caller that opened it: the go-sdk refuses a session to a
// request whose auth.TokenInfo names another user (403), so a stolen
// Mcp-Session-Id is worth nothing to another caller.
func bindSDKSessions(h http.Handler) http.Handler {
	withUser := auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: httpguard.CallerOf(r.Context()), Expiration: time.Now().Add(time.Hour)}, nil
	}, nil)(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if httpguard.CallerOf(r.Context()) == "" {
			h.ServeHTTP(w, r) // no token: one caller
			return
		}
		withUser.ServeHTTP(w, r)
	})
}

// fleetSessionID is the toolhost session of a call served by a fleet
// without one named in _meta; "" outside a fleet.
func fleetSessionID(ctx context.Context) string {
	if c := fleetOf(ctx); c != nil {
		return "mcp_" + c.id
	}
	return ""
}

// jsonrpcMessage is what the fleet handler reads of a message.
type jsonrpcMessage struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func messagesOf(body []byte) []jsonrpcMessage {
	body = bytes.TrimSpace(body)
	var msgs []jsonrpcMessage
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return nil
		}
		return msgs
	}
	var m jsonrpcMessage
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return []jsonrpcMessage{m}
}

// initializeOf is the parameters of the initialize request in body, nil
// when it holds none.
func initializeOf(body []byte) *sdk.InitializeParams {
	for _, m := range messagesOf(body) {
		if m.Method == "initialize" {
			var p sdk.InitializeParams
			if json.Unmarshal(m.Params, &p) == nil {
				return &p
			}
		}
	}
	return nil
}

// asksSomething reports whether body holds a request (a method and an id).
func asksSomething(body []byte) bool {
	for _, m := range messagesOf(body) {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			return true
		}
	}
	return false
}

// onlyResponses reports whether body holds responses and nothing else.
func onlyResponses(body []byte) bool {
	msgs := messagesOf(body)
	for _, m := range msgs {
		if m.Method != "" || len(m.ID) == 0 || (len(m.Result) == 0 && len(m.Error) == 0) {
			return false
		}
	}
	return len(msgs) > 0
}
