package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsMessage is one message of graphql-transport-ws.
type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// wsClient is a graphql-transport-ws connection that answers pings.
type wsClient struct {
	t    *testing.T
	ctx  context.Context
	conn *websocket.Conn
}

// dialWS opens a graphql-transport-ws connection to base and initialises
// it with token.
func dialWS(t *testing.T, ctx context.Context, base, token string) *wsClient {
	t.Helper()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	c := &wsClient{t: t, ctx: ctx, conn: conn}
	c.send(wsMessage{Type: "connection_init", Payload: json.RawMessage(`{"Authorization":"Bearer ` + token + `"}`)})
	if m, err := c.read(); err != nil || m.Type != "connection_ack" {
		t.Fatalf("connection_init answered %+v (%v)", m, err)
	}
	return c
}

func (c *wsClient) send(m wsMessage) {
	c.t.Helper()
	b, _ := json.Marshal(m)
	if err := c.conn.Write(c.ctx, websocket.MessageText, b); err != nil {
		c.t.Fatal(err)
	}
}

// operation sends a subscribe message of query with vars under id.
func (c *wsClient) operation(id, query string, vars map[string]any) {
	c.t.Helper()
	p, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	c.send(wsMessage{ID: id, Type: "subscribe", Payload: p})
}

// read returns the next message other than a ping or pong; the error is
// the connection's close.
func (c *wsClient) read() (wsMessage, error) {
	for {
		_, b, err := c.conn.Read(c.ctx)
		if err != nil {
			return wsMessage{}, err
		}
		var m wsMessage
		if err := json.Unmarshal(b, &m); err != nil {
			c.t.Fatalf("not a message: %q", b)
		}
		switch m.Type {
		case "ping":
			c.send(wsMessage{Type: "pong"})
		case "pong", "ka":
		default:
			return m, nil
		}
	}
}

// result reads until the next or error message of id and returns its
// payload.
func (c *wsClient) result(id string) string {
	c.t.Helper()
	for {
		m, err := c.read()
		if err != nil {
			c.t.Fatalf("operation %s: the connection closed: %v", id, err)
		}
		if m.ID == id && (m.Type == "next" || m.Type == "error") {
			return string(m.Payload)
		}
	}
}

// untilClosed reads every message until the connection closes and returns
// them with the close status and reason.
func (c *wsClient) untilClosed() ([]wsMessage, websocket.StatusCode, string) {
	var ms []wsMessage
	for {
		m, err := c.read()
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) {
				c.t.Fatalf("the connection ended without a close frame: %v (after %+v)", err, ms)
			}
			return ms, ce.Code, ce.Reason
		}
		ms = append(ms, m)
	}
}

// TestWebsocketRefusesLostRights: on an open graphql-transport-ws
// connection, once the token is revoked, has expired, its user is
// deactivated or its account suspended, the next query and the next
// mutation are refused, the connection closes with 4403, and the mutation
// changed nothing.
func TestWebsocketRefusesLostRights(t *testing.T) {
	db := t.TempDir() + "/rights.db"
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	globex := bootstrapDB(t, db, "Globex", "admin@globex.test")
	s := startServer(t, db)
	hc := conformingClient(t)
	admin := client{t: t, hc: hc, base: s.base, token: boot.Token, acct: boot.AccountID}
	sess := admin.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	goal := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Grow", "sessionId": sess["id"]}, 201)
	gid := goal["id"].(string)
	memberRole := ""
	for _, r := range admin.must("GET", "/api/v2/roles?limit=100", nil, 200)["items"].([]any) {
		if r.(map[string]any)["name"] == "member" {
			memberRole = r.(map[string]any)["id"].(string)
		}
	}
	// A member who owns a goal: it may rename it until deactivated.
	member := admin.must("POST", "/api/v2/users", map[string]any{"email": "ops@acme.test", "firstName": "Ops", "roleIds": []any{memberRole}}, 201)
	owned := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Grow", "sessionId": sess["id"], "ownerId": member["id"]}, 201)
	gc := client{t: t, hc: hc, base: s.base, token: globex.Token, acct: globex.AccountID}
	gsess := gc.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	ggoal := gc.must("POST", "/api/v1/goals", map[string]any{"name": "Grow", "sessionId": gsess["id"]}, 201)

	read := `query($id: ID!) { goal(id: $id) { id name } }`
	write := `mutation($id: ID!) { updateGoal(id: $id, input: {name: "changed after the rights were lost"}) { id name } }`
	cases := []struct {
		name string
		// setup returns the token of the connection, the goal it reads and
		// writes, and the function that takes its rights away.
		setup func(t *testing.T) (token, goalID string, lose func())
		// check reads the goal's name as someone who may.
		check func(t *testing.T, goalID string) string
	}{
		{"revoked", func(t *testing.T) (string, string, func()) {
			admin := admin.as(t)
			tok := admin.must("POST", "/api/v2/users/me/tokens", map[string]any{"name": "ws"}, 201)
			return tok["token"].(string), gid, func() {
				admin.must("DELETE", "/api/v2/users/me/tokens/"+tok["id"].(string), nil, 204)
			}
		}, nil},
		{"expired", func(t *testing.T) (string, string, func()) {
			admin := admin.as(t)
			tok := admin.must("POST", "/api/v2/users/me/tokens", map[string]any{"name": "short", "expiresIn": 2}, 201)
			expires, err := time.Parse(time.RFC3339, tok["expiresAt"].(string))
			if err != nil {
				t.Fatal(err)
			}
			return tok["token"].(string), gid, func() { time.Sleep(time.Until(expires) + 100*time.Millisecond) }
		}, nil},
		{"deactivated", func(t *testing.T) (string, string, func()) {
			admin := admin.as(t)
			tok := admin.must("POST", "/api/v2/users/"+member["id"].(string)+"/tokens", nil, 201)
			return tok["token"].(string), owned["id"].(string), func() {
				admin.must("PATCH", "/api/v2/users/"+member["id"].(string), map[string]any{"isActive": false}, 200)
			}
		}, nil},
		{"suspended", func(t *testing.T) (string, string, func()) {
			return globex.Token, ggoal["id"].(string), func() {
				if out, err := exec.Command(binary, "account", "suspend", "--db", db, "--id", globex.AccountID).CombinedOutput(); err != nil {
					t.Fatalf("account suspend: %v %s", err, out)
				}
			}
		}, func(t *testing.T, goalID string) string {
			if out, err := exec.Command(binary, "account", "resume", "--db", db, "--id", globex.AccountID).CombinedOutput(); err != nil {
				t.Fatalf("account resume: %v %s", err, out)
			}
			return gc.as(t).must("GET", "/api/v1/goals/"+goalID, nil, 200)["name"].(string)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			token, goalID, lose := tc.setup(t)
			ws := dialWS(t, ctx, s.base, token)
			ws.operation("1", read, map[string]any{"id": goalID})
			if got := ws.result("1"); !strings.Contains(got, `"name":"Grow"`) {
				t.Fatalf("before: the query answered %s", got)
			}
			lose()
			lost := time.Now()
			ws.operation("2", read, map[string]any{"id": goalID})
			ws.operation("3", write, map[string]any{"id": goalID})
			ms, code, reason := ws.untilClosed()
			t.Logf("closed %v after the rights were lost: %d %q", time.Since(lost), code, reason)
			for _, m := range ms {
				if (m.ID == "2" || m.ID == "3") && m.Type == "next" && !strings.Contains(string(m.Payload), `"errors"`) {
					t.Errorf("operation %s ran after the rights were lost: %s", m.ID, m.Payload)
				}
			}
			if code != 4403 {
				t.Errorf("close %d %q, want 4403", code, reason)
			}
			name := ""
			if tc.check != nil {
				name = tc.check(t, goalID)
			} else {
				name = admin.as(t).must("GET", "/api/v1/goals/"+goalID, nil, 200)["name"].(string)
			}
			if name != "Grow" {
				t.Errorf("the mutation sent after the rights were lost renamed the goal to %q", name)
			}
		})
	}
}

// as returns c reporting to t.
func (c client) as(t *testing.T) client { c.t = t; return c }

// TestWebsocketLifetime: a connection is closed with 1001 and a reason
// that says to reconnect after --graphql-ws-max-lifetime, pings or not,
// and a new connection works.
func TestWebsocketLifetime(t *testing.T) {
	db := t.TempDir() + "/lifetime.db"
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	s := startServer(t, db, "--graphql-ws-max-lifetime", "2s")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := 0; i < 2; i++ {
		ws := dialWS(t, ctx, s.base, boot.Token)
		ws.operation("1", `{ sessions(first: 1) { totalCount } }`, nil)
		if got := ws.result("1"); !strings.Contains(got, `"totalCount":0`) {
			t.Fatalf("connection %d: the query answered %s", i, got)
		}
		_, code, reason := ws.untilClosed()
		if code != websocket.StatusGoingAway || !strings.Contains(reason, "reconnect") {
			t.Errorf("connection %d: closed with %d %q, want 1001 saying to reconnect", i, code, reason)
		}
	}
	// The server is still serving.
	if resp, err := http.Get(s.base + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz after the lifetimes: %v %v", resp, err)
	}
}
