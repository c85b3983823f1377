package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"

	"github.com/okrgate/okrgate/upstream"
)

// IsLive reports whether r opens a subscription: a websocket upgrade, or a
// POST that accepts text/event-stream (gqlgen's SSE transport).
func IsLive(r *http.Request) bool {
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return true
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return r.Method == http.MethodPost && mt == "application/json" && strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// websocketTransport is gqlgen's graphql-transport-ws (and graphql-ws)
// transport: the connection_init payload carries the bearer token
// ({"Authorization": "Bearer <token>"}), authenticated like HTTP, and
// authenticated again before every operation (wsOperations) and every
// l.Reauth while the connection lasts; the connection ends with a close
// code and reason of ours when a subscription or a check ends it (slow
// consumer 4008, token no longer valid 4403) and after lifetime (1001,
// CloseLifetimeReason; 0 = DefaultMaxConnLifetime).
func websocketTransport(l *Live, lifetime time.Duration) transport.Websocket {
	if lifetime <= 0 {
		lifetime = DefaultMaxConnLifetime
	}
	return transport.Websocket{
		Implementation:        closingImplementation{},
		PingPongInterval:      l.PingInterval,
		KeepAlivePingInterval: l.PingInterval, // the older graphql-ws subprotocol
		MissingPongOk:         true,
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			conn := connOf(ctx)
			token := ""
			if scheme, t, ok := strings.Cut(p.Authorization(), " "); ok && strings.EqualFold(scheme, "Bearer") {
				token = strings.TrimSpace(t)
			}
			if token == "" && conn != nil {
				token = conn.token // an Authorization header on the upgrade request
			}
			if token == "" {
				return ctx, nil, errors.New(`unauthenticated: send {"Authorization": "Bearer <token>"} in connection_init`)
			}
			c, err := l.Auth.Authenticate(ctx, token)
			if err != nil {
				return ctx, nil, errors.New("unauthenticated: " + upstream.ErrorMessage(err))
			}
			ctx, cancel := context.WithCancel(upstream.NewContext(ctx, c))
			kill := func(code int, reason string) {
				if conn != nil {
					conn.closeWith(code, reason)
					// A writer stuck on a peer that does not read holds the
					// connection: after the grace its writes fail.
					time.AfterFunc(l.WriteGrace, conn.stopWrites)
				}
				cancel()
			}
			rights := &wsRights{token: token, kill: kill, end: lifetimeEnd(time.Now(), lifetime)}
			rights.watch(ctx, l.Auth, l.Reauth)
			ctx = context.WithValue(ctx, wsRightsKey{}, rights)
			return withLiveConn(ctx, &liveConn{token: token, kill: kill}), nil, nil
		},
	}
}

// closingImplementation accepts websockets with coder/websocket (same
// origin only, its default) and lets a subscription choose the close code
// and reason of its connection.
type closingImplementation struct{}

type closingConnKey struct{}

// connHolder is put in the request's context before the transport runs, so
// InitFunc finds the connection Accept made.
type connHolder struct {
	mu sync.Mutex
	c  *closingConn
	// token of an Authorization header on the upgrade request, if any.
	token string
}

func connOf(ctx context.Context) *closingConn {
	h, _ := ctx.Value(closingConnKey{}).(*connHolder)
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.c != nil {
		h.c.token = h.token
	}
	return h.c
}

func (closingImplementation) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	for k, vs := range o.ResponseHeader {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	ws, err := coderws.Accept(w, r, &coderws.AcceptOptions{Subprotocols: o.Subprotocols})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &closingConn{ws: ws, writeCtx: ctx, stopWrites: cancel}
	if h, _ := r.Context().Value(closingConnKey{}).(*connHolder); h != nil {
		h.mu.Lock()
		h.c = c
		h.mu.Unlock()
	}
	return c, nil
}

// closingConn is a coder/websocket connection whose close code and reason
// a subscription may set before the transport closes it. Writes stop when
// it is killed, so a consumer that does not read cannot hold the
// connection's writer.
type closingConn struct {
	ws         *coderws.Conn
	writeCtx   context.Context
	stopWrites context.CancelFunc
	token      string

	mu     sync.Mutex
	code   int
	reason string
}

// maxCloseReason is the longest close reason a close frame carries
// (RFC 6455: 125 bytes of payload, 2 of them the code).
const maxCloseReason = 123

// closeWith records the code and reason of the coming close; a reason too
// long for a close frame is cut at a rune boundary.
func (c *closingConn) closeWith(code int, reason string) {
	if len(reason) > maxCloseReason {
		cut := maxCloseReason
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut]
	}
	c.mu.Lock()
	if c.code == 0 {
		c.code, c.reason = code, reason
	}
	c.mu.Unlock()
}

func (c *closingConn) NextReader() (int, io.Reader, error) {
	t, data, err := c.ws.Read(context.Background())
	if err != nil {
		switch coderws.CloseStatus(err) {
		case coderws.StatusNormalClosure, coderws.StatusNoStatusRcvd:
			return int(t), nil, transport.ErrWebsocketClosed
		}
		return int(t), nil, err
	}
	return int(t), bytes.NewReader(data), nil
}

// WriteJSON writes a message of the transport as one text frame; its
// payload, encoded already, is not encoded again (envelope).
func (c *closingConn) WriteJSON(v any) error {
	b, ok := envelope(v)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return err
		}
	}
	return c.ws.Write(c.writeCtx, coderws.MessageText, b)
}

func (c *closingConn) WriteClose(code int, reason string) error {
	c.mu.Lock()
	if c.code != 0 {
		code, reason = c.code, c.reason
	}
	c.mu.Unlock()
	// Close writes the close frame and waits (bounded) for the peer's.
	go func() {
		_ = c.ws.Close(coderws.StatusCode(code), reason)
		c.stopWrites()
	}()
	return nil
}

func (c *closingConn) Close() error {
	return nil // WriteClose's Close ends the connection
}

func (c *closingConn) Subprotocol() string { return c.ws.Subprotocol() }

func (c *closingConn) SetReadLimit(n int64) { c.ws.SetReadLimit(n) }

// sseTransport is gqlgen's SSE transport: authenticated by the
// Authorization header like any request.
func sseTransport(l *Live) transport.SSE {
	return transport.SSE{KeepAlivePingInterval: l.PingInterval}
}

// liveHandler serves a subscription request: the websocket's connection
// state, or for SSE (authenticated by package authn's middleware already) its own.
func liveHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		token := ""
		if scheme, t, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			token = strings.TrimSpace(t)
		}
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			ctx = context.WithValue(ctx, closingConnKey{}, &connHolder{token: token})
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		// The server's write timeout is for requests, not for a stream.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		lc := &liveConn{token: token, kill: func(int, string) { cancel() }}
		next.ServeHTTP(w, r.WithContext(withLiveConn(ctx, lc)))
	})
}
