package live

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/resolvers/live/graphqlws"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/authn"
)

// IsRequest reports whether r asks for a live transport: a websocket
// upgrade, or a POST that accepts text/event-stream (gqlgen's SSE
// transport).
func IsRequest(r *http.Request) bool {
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return true
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return r.Method == http.MethodPost && mt == "application/json" && strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// websocketTransport serves graphql-transport-ws (and the legacy
// graphql-ws) with graphqlws: the connection_init payload carries the
// bearer token ({"Authorization": "Bearer <token>"}; or the upgrade
// request's Authorization header) and may name the account
// ({"service-accountId": "…"}; or the upgrade request's account header),
// authenticated like HTTP. The account the connection opens in is fixed
// for its life: the token is authenticated again in that account before
// every operation (wsSession.Operation) and every l.Reauth while the
// connection lasts, and by the fan-out before each batch of events; the connection ends with a
// close code and reason of ours when a subscription or a check ends it
// (slow consumer 4008, token no longer valid 4403) and after lifetime
// (1001, CloseLifetimeReason; 0 = DefaultMaxConnLifetime). The fan-out
// drives its subscriptions' streams (stream).
func websocketTransport(l *Hub, lifetime time.Duration) graphqlws.Transport {
	if lifetime <= 0 {
		lifetime = DefaultMaxConnLifetime
	}
	return graphqlws.Transport{
		Pinger:      graphqlws.NewPinger(l.PingInterval),
		InitTimeout: l.InitTimeout,
		MaxQueued:   l.Buffer,
		WriteGrace:  l.WriteGrace,
		AllowOrigin: l.AllowOrigin,
		Init: func(ctx context.Context, r *http.Request, payload json.RawMessage, conn *graphqlws.Conn) (graphqlws.Session, error) {
			var p map[string]any
			_ = json.Unmarshal(payload, &p)
			auth, _ := p["Authorization"].(string)
			if auth == "" {
				auth, _ = p["authorization"].(string)
			}
			token := bearer(auth)
			if token == "" {
				token = bearer(r.Header.Get("Authorization"))
			}
			if token == "" {
				return nil, errors.New(`unauthenticated: send {"Authorization": "Bearer <token>"} in connection_init`)
			}
			acct := initAccount(p)
			if acct == "" {
				acct = authn.Account(r)
			}
			c, err := l.Auth.AuthenticateIn(ctx, upstream.Credential{Token: token, Account: acct})
			if err != nil {
				return nil, errors.New("unauthenticated: " + upstream.ErrorMessage(err))
			}
			// The connection's account from now on, whatever the token
			// is later presented with elsewhere.
			cred := upstream.Credential{Token: token, Account: c.AccountID}
			ctx, cancel := context.WithCancel(upstream.NewContext(ctx, c))
			kill := func(code int, reason string) {
				conn.Close(code, reason)
				cancel()
			}
			rights := &wsRights{cred: cred, kill: kill, end: lifetimeEnd(time.Now(), lifetime)}
			rights.watch(ctx, l.Auth, l.Reauth)
			return &wsSession{l: l, rights: rights, conn: &liveConn{cred: cred, kill: kill, checked: rights.markChecked}, cancel: cancel}, nil
		},
	}
}

// initAccount returns the account a connection_init payload names with an
// account header's name (any letter case), or "".
func initAccount(p map[string]any) string {
	for k, v := range p {
		if strings.EqualFold(k, authn.AccountHeader) || strings.EqualFold(k, authn.AccountHeaderAlias) {
			if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s)
			}
		}
	}
	return ""
}

// bearer returns the token of an "Bearer <token>" authorization, or "".
func bearer(auth string) string {
	tok, _ := authn.BearerToken(auth)
	return tok
}

// wsSession is an authenticated websocket.
type wsSession struct {
	l      *Hub
	rights *wsRights
	conn   *liveConn
	cancel context.CancelFunc
}

// Operation authorizes an operation — query, mutation or the start of a
// subscription — against the token's current state, before it runs: a
// refused operation is answered with the protocol's error message (and
// the connection closed with CloseForbidden), so a mutation sent after its
// token was revoked changes nothing. An operation that runs acts as the
// caller the token is now (its roles as they are now), with its own memo
// and Scope (a subscription's items render in their group's), never
// the connection's. A subscription's stream is bound to its operation for
// stream to find.
func (s *wsSession) Operation(ctx context.Context, op *graphqlws.Operation) (context.Context, func(), error) {
	c, err := s.rights.authorize(ctx, s.l.Auth)
	if err != nil {
		code := upstream.ErrorCode(err).GraphQL()
		msg := upstream.ErrorMessage(err)
		if code == upstream.CodeInternal.GraphQL() {
			msg = "internal error"
		}
		e := gqlerror.Errorf("%s", msg)
		e.Extensions = map[string]any{"code": code}
		return ctx, nil, e
	}
	ctx = upstream.WithMemo(upstream.NewContext(ctx, c))
	if op.Stream == nil {
		return s.l.scope()(ctx), nil, nil
	}
	lo := &liveOp{conn: s.conn, sink: op.Stream}
	s.l.bind(op.OC, lo)
	return ctx, func() {
		if lo.dq == nil { // refused before it started: operations never saw it
			s.l.ops.CompareAndDelete(op.OC, lo)
		}
	}, nil
}

// Close ends the session's checks.
func (s *wsSession) Close() { s.cancel() }

// sseTransport is gqlgen's SSE transport: authenticated by the
// Authorization header like any request.
func sseTransport(l *Hub) transport.SSE {
	return transport.SSE{KeepAlivePingInterval: l.PingInterval}
}

// Handler serves a live request (IsRequest; over SSE authenticated by
// package authn's middleware already): without the server's write timeout,
// which is for requests, not for a stream.
func Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		}
		next.ServeHTTP(w, r)
	})
}

// liveOp is what a subscription's operation is served with: its
// connection, its stream on a websocket (nil over SSE), and the queue of
// its deliveries. Live.ops holds it by operation context while the
// operation lasts.
type liveOp struct {
	conn *liveConn
	sink *graphqlws.Stream
	dq   *deliveries
}

func (l *Hub) bind(oc *graphql.OperationContext, op *liveOp) { l.ops.Store(oc, op) }

// opOf returns the subscription operation of ctx, or nil.
func (l *Hub) opOf(ctx context.Context) *liveOp {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil {
		return nil
	}
	op, _ := l.ops.Load(oc)
	o, _ := op.(*liveOp)
	return o
}

// operations gives each subscription its deliveries queue, and one over
// SSE its connection (its token, and ending it ends the response), kept
// in l.ops until it ends.
func (l *Hub) operations(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || oc.Operation == nil || oc.Operation.Operation != "subscription" {
		return next(ctx)
	}
	op := l.opOf(ctx)
	if op == nil { // SSE
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		// The request was authenticated: its caller's account is the
		// stream's for its life.
		caller, _ := upstream.CallerFrom(ctx)
		cred := upstream.Credential{Token: bearer(oc.Headers.Get("Authorization")), Account: caller.AccountID}
		op = &liveOp{conn: &liveConn{cred: cred, kill: func(int, string) { cancel() }}}
		l.bind(oc, op)
	}
	op.dq = newDeliveries()
	context.AfterFunc(ctx, func() { l.ops.CompareAndDelete(oc, op) })
	return next(ctx)
}
