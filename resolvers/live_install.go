package resolvers

import (
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql/handler"

	"github.com/okrgate/okrgate/upstream"
)

// Install serves the subscriptions of l on srv: the websocket transport
// (connections closed after lifetime, 0: DefaultMaxConnLifetime) and the
// SSE transport, both before any other transport, which would take an SSE
// request (a JSON POST) as a plain one, and the operation and response
// middleware that bind each subscription to its stream and render its
// items over api. Install fills in the defaults of l's zero fields; auth,
// when l.Auth is nil, re-authenticates the streams' tokens as requests
// are.
func (l *Live) Install(srv *handler.Server, auth upstream.AuthService, api upstream.API, lifetime time.Duration) {
	if l.Auth == nil {
		l.Auth = auth
	}
	l.defaults()
	srv.AddTransport(websocketTransport(l, api, lifetime))
	srv.AddTransport(sseTransport(l))
	srv.AroundOperations(l.operations)
	srv.AroundResponses(liveResponses(l, api))
}

// LiveHandler serves a live request (IsLive) with next, a server Install
// prepared: a websocket upgrade, or a server-sent event stream without the
// server's write timeout, which is for requests, not for a stream.
func LiveHandler(next http.Handler) http.Handler { return liveHandler(next) }
