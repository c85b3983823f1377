package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// liveGoal is a goal of a goalChanged update.
type liveGoal struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Attainment float64 `json:"attainment"`
}

// liveUpdate is the payload of a goalChanged update.
type liveUpdate struct {
	Data struct {
		GoalChanged liveGoal `json:"goalChanged"`
	} `json:"data"`
	Errors     []json.RawMessage `json:"errors"`
	Extensions struct {
		Position int64 `json:"position"`
	} `json:"extensions"`
}

const liveQuery = `subscription($s: ID, $after: Int) { goalChanged(sessionId: $s, after: $after) { id name attainment } }`

// TestLiveGoalChanges runs the binary, subscribes to a session's goal
// changes over graphql-transport-ws (a Go client) and over server-sent
// events, checks in on a key result three levels deep over REST, and
// receives on both the key result's goal and every ancestor with the
// attainment REST then reads.
func TestLiveGoalChanges(t *testing.T) {
	db := t.TempDir() + "/live.db"
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	s := startServer(t, db)
	liveGoalChanges(t, boot, s.base, s.base)
}

// TestLiveAcrossReplicas runs two processes on one PostgreSQL database:
// the subscriptions on one receive the check-in made through the other
// (it reads the shared log by position; no message passes between them).
func TestLiveAcrossReplicas(t *testing.T) {
	// A built binary and a database of its own; mostly waiting on them.
	t.Parallel()
	dsn := sqlstoretest.PostgresURL(t) // skips without OKRGATE_TEST_POSTGRES
	boot := bootstrapDB(t, dsn, "Replicas", "admin@replicas.test")
	a := startServer(t, dsn)
	b := startServer(t, dsn)
	liveGoalChanges(t, boot, a.base, b.base)
}

// liveGoalChanges subscribes on the server at subscribe and writes through
// the one at write.
func liveGoalChanges(t *testing.T, boot bootResult, subscribe, write string) {
	c := client{t: t, hc: conformingClient(t), base: write, token: boot.Token}
	sess := c.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1 2027", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	sid := sess["id"].(string)
	var chain []string
	parent := ""
	for i, name := range []string{"Company", "Department", "Team"} {
		// Company and Department average their child goal; Team its key
		// result: the check-in moves every attainment on the path.
		mode := "average_children"
		if i == 2 {
			mode = "average_kr"
		}
		in := map[string]any{"name": name, "sessionId": sid, "attainmentTypeString": mode}
		if parent != "" {
			in["parentId"] = parent
		}
		g := c.must("POST", "/api/v1/goals", in, 201)
		parent = g["id"].(string)
		chain = append(chain, parent)
	}
	kr := c.must("POST", "/api/v1/metrics", map[string]any{"name": "Revenue", "goalId": parent, "initialValue": 0, "target": 100, "targetOperator": "at_least"}, 201)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// after: 0 replays the log from its start, so nothing written before
	// the subscriptions are running is missed.
	vars := map[string]any{"s": sid, "after": 0}
	ws := wsNext(t, ctx, subscribe, boot.Token, liveQuery, vars)
	sse := sseNext(t, ctx, subscribe, boot.Token, liveQuery, vars)

	start := time.Now()
	c.must("POST", "/api/v1/metrics/"+kr["id"].(string)+"/checkin", map[string]any{"actual": 50}, 201)
	want := map[string]float64{}
	for _, id := range chain {
		want[id] = num(c.must("GET", "/api/v1/goals/"+id, nil, 200)["attainment"])
	}
	for _, id := range chain {
		if want[id] != 0.5 {
			t.Fatalf("goal %s attainment %v after the check-in, want 0.5 on the whole path", id, want[id])
		}
	}
	for name, next := range map[string]func() liveUpdate{"graphql-transport-ws": ws, "sse": sse} {
		pending := map[string]bool{}
		for _, id := range chain {
			pending[id] = true
		}
		for len(pending) > 0 {
			u := next()
			g := u.Data.GoalChanged
			if w, ok := want[g.ID]; ok && pending[g.ID] && g.Attainment == w {
				delete(pending, g.ID)
			}
		}
		t.Logf("%s: every goal on the path arrived with its new attainment %v after the check-in", name, time.Since(start))
	}
}

// wsNext subscribes over graphql-transport-ws and returns a function that
// reads the next update.
func wsNext(t *testing.T, ctx context.Context, base, token, query string, vars map[string]any) func() liveUpdate {
	t.Helper()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	send := func(v any) {
		b, _ := json.Marshal(v)
		if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	type message struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	read := func() message {
		for {
			_, b, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var m message
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if m.Type == "ping" {
				send(map[string]any{"type": "pong"})
				continue
			}
			return m
		}
	}
	send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + token}})
	if m := read(); m.Type != "connection_ack" {
		t.Fatalf("connection_init answered %s %s", m.Type, m.Payload)
	}
	send(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}})
	return func() liveUpdate {
		t.Helper()
		m := read()
		var u liveUpdate
		if m.Type != "next" || json.Unmarshal(m.Payload, &u) != nil || len(u.Errors) > 0 {
			t.Fatalf("websocket: %s %s", m.Type, m.Payload)
		}
		return u
	}
}

// sseNext subscribes with a text/event-stream POST and returns a function
// that reads the next update; header is name, value pairs to send beside
// the token.
func sseNext(t *testing.T, ctx context.Context, base, token, query string, vars map[string]any, header ...string) func() liveUpdate {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/graphql", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("sse: status %d, content type %q", resp.StatusCode, ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return func() liveUpdate {
		t.Helper()
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
				continue
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			var u liveUpdate
			if event != "next" || json.Unmarshal([]byte(data), &u) != nil || len(u.Errors) > 0 {
				t.Fatalf("sse: event %q: %s", event, data)
			}
			return u
		}
		t.Fatalf("sse: stream ended: %v", sc.Err())
		return liveUpdate{}
	}
}
