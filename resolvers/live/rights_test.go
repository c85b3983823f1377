package live_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestWebsocketOperationsActAsTheTokenIsNow: an admin demoted to viewer
// while its websocket is open reads the private goal no more on its next
// query (each operation acts as the caller the token is now, with fresh
// loaders), and a revoked token's next operation is refused with
// UNAUTHENTICATED and closes the connection with 4403.
func TestWebsocketOperationsActAsTheTokenIsNow(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{})
	tr := e.tree(e.adminCtx)
	roles, err := e.store.ListRoles(e.adminCtx, upstream.ListQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	role := map[string]string{}
	for _, r := range roles.Items {
		role[r.Name] = r.ID
	}
	// A member with a token, then made an admin (an admin's tokens are
	// its own to mint).
	ops, err := e.store.CreateUser(e.adminCtx, upstream.UserInput{Email: "ops@acme.test", FirstName: "Ops", Role: "member"})
	if err != nil {
		t.Fatal(err)
	}
	token, err := e.store.CreateToken(e.adminCtx, ops.ID)
	if err != nil {
		t.Fatal(err)
	}
	setRole := func(name string) {
		t.Helper()
		ids := []string{role[name]}
		if _, err := e.store.UpdateUser(e.adminCtx, ops.ID, upstream.UserPatch{RoleIDs: &ids}); err != nil {
			t.Fatal(err)
		}
	}
	setRole("admin")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ws := dialWS(t, ctx, e.srv.URL, token, nil)
	query := func(id string) wsMessage {
		t.Helper()
		ws.subscribe(id, `query($id: ID!) { goal(id: $id) { id name } }`, map[string]any{"id": tr.secret.ID})
		for {
			m := ws.read()
			if m.ID == id && (m.Type == "next" || m.Type == "error") {
				return m
			}
		}
	}
	if m := query("1"); !strings.Contains(string(m.Payload), `"name":"secret"`) {
		t.Fatalf("as an admin: %s", m.Payload)
	}
	setRole("viewer")
	if m := query("2"); strings.Contains(string(m.Payload), `secret`) || !strings.Contains(string(m.Payload), `"goal":null`) {
		t.Errorf("demoted to viewer, the next query on the open connection answered %s", m.Payload)
	}

	tokens, err := e.store.ListTokens(e.as(sqlstore.BootstrapResult{Token: token}))
	if err != nil || len(tokens) != 1 {
		t.Fatalf("tokens %v, %v", tokens, err)
	}
	if err := e.store.RevokeToken(e.as(sqlstore.BootstrapResult{Token: token}), tokens[0].ID); err != nil {
		t.Fatal(err)
	}
	ws.subscribe("3", `{ sessions(first: 1) { totalCount } }`, nil)
	refused := false
	for {
		m, err := ws.tryRead()
		if err != nil {
			if code := websocket.CloseStatus(err); code != live.CloseForbidden {
				t.Errorf("closed with %v (%d), want %d", err, code, live.CloseForbidden)
			}
			break
		}
		if m.ID == "3" && (m.Type == "next" || m.Type == "error") {
			if m.Type != "error" || !strings.Contains(string(m.Payload), `"UNAUTHENTICATED"`) {
				t.Errorf("after the revocation, the query answered %s %s", m.Type, m.Payload)
			}
			refused = true
		}
	}
	if !refused {
		t.Log("the connection closed before the refusal was written") // both orders are correct
	}
}

// TestIdleWebsocketClosedWhenTokenRevoked: a connection that sends
// nothing (no operation, no subscription) is closed with 4403 by the idle
// check once its token is revoked, pings or not.
func TestIdleWebsocketClosedWhenTokenRevoked(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{Reauth: 50 * time.Millisecond, PingInterval: 20 * time.Millisecond})
	tok, err := e.store.IssueToken(e.adminCtx, e.admin.UserID, upstream.TokenInput{Name: "idle"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ws := dialWS(t, ctx, e.srv.URL, tok.Secret, nil)
	if err := e.store.RevokeToken(e.adminCtx, tok.ID); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := ws.tryRead() // answers pings
		if err != nil {
			if code := websocket.CloseStatus(err); code != live.CloseForbidden {
				t.Errorf("closed with %v (%d), want %d", err, code, live.CloseForbidden)
			}
			return
		}
		if m.Type != "pong" && m.Type != "ka" && m.Type != "connection_error" {
			t.Errorf("unexpected message %+v", m)
		}
	}
}

// BenchmarkWebsocketQuery measures one small query on an open websocket,
// which authenticates its token again before it runs (wsSession.Operation),
// beside that authentication alone: the share of the per-operation check.
func BenchmarkWebsocketQuery(b *testing.B) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: st, Auth: st, Live: &live.Hub{Log: st, Classes: st}}))
	defer srv.Close()

	b.Run("authenticate", func(b *testing.B) {
		for b.Loop() {
			if _, err := st.Authenticate(ctx, boot.Token); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("query", func(b *testing.B) {
		conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
		if err != nil {
			b.Fatal(err)
		}
		defer conn.CloseNow()
		write := func(s string) {
			if err := conn.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
				b.Fatal(err)
			}
		}
		// read returns the next message of type typ.
		read := func(typ string) {
			for {
				_, m, err := conn.Read(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if strings.Contains(string(m), `"type":"`+typ+`"`) {
					return
				}
			}
		}
		write(`{"type":"connection_init","payload":{"Authorization":"Bearer ` + boot.Token + `"}}`)
		read("connection_ack")
		for b.Loop() {
			write(`{"id":"q","type":"subscribe","payload":{"query":"{ sessions(first: 1) { totalCount } }"}}`)
			read("complete")
		}
	})
}
