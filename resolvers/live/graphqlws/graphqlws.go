// Package graphqlws serves GraphQL over websockets for a gqlgen executor:
// the graphql-transport-ws protocol (the graphql-ws library's), and the
// older graphql-ws protocol of subscriptions-transport-ws for clients that
// ask for it or for no subprotocol.
//
// It is written for many idle connections that receive the same updates:
// one goroutine per connection (its reader) and none per subscription or
// for keep-alives (one Pinger serves every connection); no write buffer
// while a connection is idle; and a subscription may be driven from
// outside (Stream.Drive): a fan-out renders an update once, queues the
// same encoded payload on every subscriber's connection (Stream.Send) and
// writes each connection's queue with one write (Stream.Flush).
// gorilla/websocket does the handshake and reads frames; the server's
// frames, which are never masked, are written here so that a batch of them
// leaves in one write.
package graphqlws

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/gorilla/websocket"
)

// Subprotocols, in the server's order of preference.
const (
	// TransportWS is graphql-transport-ws.
	TransportWS = "graphql-transport-ws"
	// LegacyWS is subscriptions-transport-ws's graphql-ws, also spoken to
	// a client that names no subprotocol.
	LegacyWS = "graphql-ws"
)

// Close codes of graphql-transport-ws, and of this server.
const (
	CloseBadRequest      = 4400 // an invalid message
	CloseUnauthorized    = 4401 // an operation before connection_ack
	CloseForbidden       = 4403 // connection_init refused
	CloseInitTimeout     = 4408 // no connection_init within Transport.InitTimeout
	CloseDuplicateID     = 4409 // an operation id already in use
	CloseTooManyInits    = 4429 // a second connection_init
	CloseInternalError   = 4500
	CloseNormal          = 1000
	CloseGoingAway       = 1001
	CloseProtocolError   = 1002 // the legacy protocol's invalid message
	closeNoStatusPayload = 1005
)

// Defaults of Transport.
const (
	DefaultInitTimeout = 10 * time.Second
	DefaultReadLimit   = 1 << 20 // bytes of one message from a client
	// DefaultReadBuffer is the read buffer a connection holds for its
	// life: client messages are small, a longer one is read in pieces.
	DefaultReadBuffer = 512
	// DefaultWriteGrace is how long a closing connection may take to take
	// what was queued before its close frame.
	DefaultWriteGrace = 10 * time.Second
)

// Transport is a gqlgen transport for websocket upgrades.
type Transport struct {
	// Init authenticates a connection by its connection_init payload (and
	// the upgrade request). An error refuses it: the connection is closed
	// with CloseForbidden and the error's message as the reason.
	Init func(ctx context.Context, r *http.Request, payload json.RawMessage, c *Conn) (Session, error)
	// InitTimeout is how long a connection may wait before its
	// connection_init (DefaultInitTimeout).
	InitTimeout time.Duration
	// ReadLimit is the longest message read (DefaultReadLimit).
	ReadLimit int64
	// Pinger sends the keep-alives of every connection (none when nil).
	Pinger *Pinger
	// MaxQueued is how many frames a connection may have queued and
	// unwritten per open subscription before Stream.Send refuses more (a
	// consumer that does not read). 0: no bound.
	MaxQueued int
	// WriteGrace bounds how long a closing connection may take to read
	// what was queued before its close frame (DefaultWriteGrace).
	WriteGrace time.Duration
	// AllowOrigin reports whether a browser page of origin, another
	// origin than the server's, may open a websocket: the handshake of any
	// other is refused with 403. An upgrade without an Origin header (not
	// a browser's) or from the server's own origin is always accepted.
	// nil: the server's own origin only.
	AllowOrigin func(origin string) bool
}

// Session is a connection's authentication: what its operations run as.
type Session interface {
	// Operation prepares an operation before it is dispatched: it
	// returns the context it runs in (the caller as the connection's
	// rights are now, say), and a func the transport calls once the
	// dispatch returned. An error refuses the operation: it is answered
	// with the protocol's error message; a Session that also closes the
	// connection does so with Conn.Close.
	Operation(ctx context.Context, op *Operation) (context.Context, func(), error)
	// Close is called once when the connection has ended.
	Close()
}

// Operation is one operation a client started.
type Operation struct {
	ID string
	// OC is its operation context, parsed and validated.
	OC *graphql.OperationContext
	// Stream is the subscription's stream (nil for a query or mutation).
	Stream *Stream
}

// Supports reports whether r asks for a websocket.
func (t Transport) Supports(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// Do upgrades r and serves the connection until it ends, on a goroutine
// of its own: Do returns once the connection is open.
func (t Transport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	up := websocket.Upgrader{
		ReadBufferSize: DefaultReadBuffer,
		// The handshake's response is written through a buffer from the
		// pool; the connection keeps none (its frames are written here).
		WriteBufferPool: handshakePool,
		Subprotocols:    []string{TransportWS, LegacyWS},
		CheckOrigin:     t.checkOrigin,
		Error: func(w http.ResponseWriter, _ *http.Request, status int, reason error) {
			http.Error(w, reason.Error(), status)
		},
	}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade answered
	}
	if t.InitTimeout <= 0 {
		t.InitTimeout = DefaultInitTimeout
	}
	if t.ReadLimit <= 0 {
		t.ReadLimit = DefaultReadLimit
	}
	if t.WriteGrace <= 0 {
		t.WriteGrace = DefaultWriteGrace
	}
	c := newConn(t, ws, r, exec)
	go c.serve()
}

// checkOrigin accepts an upgrade without an Origin header, from the
// request's own host (gorilla/websocket's default), or from an origin
// AllowOrigin allows. Browsers do not apply CORS to websockets: this is
// what keeps a page of another origin from using a connection.
func (t Transport) checkOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if u, err := url.Parse(origin); err == nil && strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return t.AllowOrigin != nil && t.AllowOrigin(origin)
}

// handshakePool is set so that gorilla/websocket keeps no write buffer
// for a connection: it writes nothing after the handshake.
var handshakePool = &sync.Pool{}
