package live_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/resolvers/live/graphqlws"
)

// rawWS opens a websocket on /graphql with subprotocol, without
// connection_init.
func rawWS(t *testing.T, ctx context.Context, srvURL, subprotocol string) *wsClient {
	t.Helper()
	opts := &websocket.DialOptions{}
	if subprotocol != "" {
		opts.Subprotocols = []string{subprotocol}
	}
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srvURL, "http")+"/graphql", opts)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Subprotocol() != subprotocol {
		t.Fatalf("negotiated %q, want %q", conn.Subprotocol(), subprotocol)
	}
	conn.SetReadLimit(-1)
	t.Cleanup(func() { conn.CloseNow() })
	return &wsClient{t: t, conn: conn, ctx: ctx}
}

// closedWith reads until the connection ends and returns its close code
// and reason; it fails the test on any message but pings and pongs.
func (c *wsClient) closedWith() (websocket.StatusCode, string) {
	c.t.Helper()
	for {
		m, err := c.tryRead()
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) {
				c.t.Fatalf("connection ended with %v, want a close frame", err)
			}
			return ce.Code, ce.Reason
		}
		if m.Type != "pong" {
			c.t.Fatalf("got %s %s before the close", m.Type, m.Payload)
		}
	}
}

// TestWebsocketProtocolCloseCodes: what graphql-transport-ws says the
// server closes with — 4408 without connection_init in time, 4401 for an
// operation before connection_ack, 4429 for a second connection_init, 4409
// for an id in use, 4400 for a message the protocol does not have or that
// is not JSON, 4403 for a token that does not authenticate.
func TestWebsocketProtocolCloseCodes(t *testing.T) {
	hub := &live.Hub{InitTimeout: 300 * time.Millisecond}
	e := newLiveEnv(t, hub)
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	init := map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + e.admin.Token}}
	sub := map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": goalChangedQuery, "variables": map[string]any{"s": tr.session}}}
	for _, tt := range []struct {
		name   string
		send   []any // messages; a string is sent as is
		code   websocket.StatusCode
		reason string
	}{
		{"init timeout", nil, graphqlws.CloseInitTimeout, "Connection initialisation timeout"},
		{"subscribe before init", []any{sub}, graphqlws.CloseUnauthorized, "Unauthorized"},
		{"second init", []any{init, init}, graphqlws.CloseTooManyInits, "Too many initialisation requests"},
		{"id in use", []any{init, sub, sub}, graphqlws.CloseDuplicateID, "Subscriber for 1 already exists"},
		{"not json", []any{init, "{"}, graphqlws.CloseBadRequest, "Invalid message received"},
		{"unknown type", []any{init, map[string]any{"type": "start", "id": "1"}}, graphqlws.CloseBadRequest, "Invalid message received"},
		{"bad token", []any{map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer nope"}}},
			graphqlws.CloseForbidden, "unauthenticated"},
		{"no token", []any{map[string]any{"type": "connection_init"}}, graphqlws.CloseForbidden, "unauthenticated"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := rawWS(t, ctx, e.srv.URL, graphqlws.TransportWS)
			for i, m := range tt.send {
				if s, ok := m.(string); ok {
					if err := c.conn.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				c.send(m)
				if i == 0 && m.(map[string]any)["type"] == "connection_init" && tt.code != graphqlws.CloseForbidden {
					if got := c.read(); got.Type != "connection_ack" {
						t.Fatalf("connection_init answered %+v", got)
					}
				}
			}
			code, reason := c.closedWith()
			if code != tt.code || !strings.HasPrefix(reason, tt.reason) {
				t.Errorf("closed with %d %q, want %d %q", code, reason, tt.code, tt.reason)
			}
		})
	}
}

// TestWebsocketPingPongComplete: a client's ping is answered with a pong
// carrying its payload, the server pings an idle connection, and a
// subscription the client completes receives nothing more while another
// on the same connection does.
func TestWebsocketPingPongComplete(t *testing.T) {
	hub := &live.Hub{PingInterval: 100 * time.Millisecond}
	e := newLiveEnv(t, hub)
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := dialWS(t, ctx, e.srv.URL, e.admin.Token, nil)

	c.send(map[string]any{"type": "ping", "payload": map[string]any{"n": 7}})
	for {
		_, b, err := c.conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m wsMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Type == "pong" {
			if string(m.Payload) != `{"n":7}` {
				t.Errorf("pong payload %s, want the ping's", m.Payload)
			}
			break
		}
		if m.Type != "ping" {
			t.Fatalf("got %s while waiting for the pong", m.Type)
		}
	}
	// The server's own ping, within a few intervals.
	for {
		_, b, err := c.conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"ping"`) {
			break
		}
	}

	vars := map[string]any{"s": tr.session, "after": e.head(e.adminCtx)}
	c.subscribe("a", goalChangedQuery, vars)
	c.subscribe("b", goalChangedQuery, vars)
	c.send(map[string]any{"id": "a", "type": "complete"})
	// A query answered after the complete fences it: the server has read
	// the complete before the check-in's events exist.
	c.send(map[string]any{"id": "f", "type": "subscribe", "payload": map[string]any{"query": "{ __typename }"}})
	for {
		m := c.read()
		if m.ID == "f" && m.Type == "complete" {
			break
		}
	}
	e.checkIn(e.adminCtx, tr.kr.ID, 5)
	seen := map[string]int{}
	for seen["b"] < 3 { // the check-in moves leaf, mid and root
		m := c.read()
		if m.Type != "next" {
			t.Fatalf("got %s %s for %q", m.Type, m.Payload, m.ID)
		}
		seen[m.ID]++
	}
	// A query on the same connection, after the updates, fences the order.
	c.send(map[string]any{"id": "q", "type": "subscribe", "payload": map[string]any{"query": "{ __typename }"}})
	for {
		m := c.read()
		if m.ID == "q" && m.Type == "complete" {
			break
		}
		if m.ID != "q" && m.ID != "b" {
			t.Fatalf("got %s for %q after it was completed", m.Type, m.ID)
		}
		if m.ID == "q" && m.Type == "next" && !strings.Contains(string(m.Payload), `"Query"`) {
			t.Errorf("query answered %s", m.Payload)
		}
	}
	if seen["a"] != 0 {
		t.Errorf("the completed subscription received %d updates", seen["a"])
	}
}

// TestLegacyGraphQLWS: the older graphql-ws protocol (subscriptions-
// transport-ws) keeps working: connection_ack and ka, start → data,
// stop, and a connection_error with close 4403 for a bad token.
func TestLegacyGraphQLWS(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{})
	tr := e.tree(e.adminCtx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := rawWS(t, ctx, e.srv.URL, graphqlws.LegacyWS)
	c.send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + e.admin.Token}})
	if m := c.read(); m.Type != "connection_ack" {
		t.Fatalf("connection_init answered %+v", m)
	}
	if m := c.read(); m.Type != "ka" {
		t.Fatalf("after the ack: %+v, want ka", m)
	}
	c.send(map[string]any{"id": "1", "type": "start", "payload": map[string]any{"query": goalChangedQuery,
		"variables": map[string]any{"s": tr.session, "after": e.head(e.adminCtx)}}})
	e.checkIn(e.adminCtx, tr.kr.ID, 5)
	m := c.read()
	for m.Type == "ka" {
		m = c.read()
	}
	if m.Type != "data" || m.ID != "1" || !strings.Contains(string(m.Payload), `"goalChanged"`) {
		t.Fatalf("got %s %s, want data of goalChanged", m.Type, m.Payload)
	}
	c.send(map[string]any{"id": "1", "type": "stop"})
	c.send(map[string]any{"type": "connection_terminate"})
	for {
		if _, err := c.tryRead(); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
				t.Errorf("connection_terminate: %v, want a normal close", err)
			}
			break
		}
	}

	bad := rawWS(t, ctx, e.srv.URL, graphqlws.LegacyWS)
	bad.send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer nope"}})
	if m := bad.read(); m.Type != "connection_error" {
		t.Fatalf("a bad token answered %+v, want connection_error", m)
	}
	if _, err := bad.tryRead(); websocket.CloseStatus(err) != graphqlws.CloseForbidden {
		t.Errorf("a bad token: %v, want close 4403", err)
	}
}
