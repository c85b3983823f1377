package live_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// wsClient is a graphql-transport-ws client on coder/websocket.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
	ctx  context.Context
}

func dialWS(t *testing.T, ctx context.Context, srvURL, token string, opts *websocket.DialOptions) *wsClient {
	t.Helper()
	if opts == nil {
		opts = &websocket.DialOptions{}
	}
	opts.Subprotocols = []string{"graphql-transport-ws"}
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srvURL, "http")+"/graphql", opts)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(-1)
	t.Cleanup(func() { conn.CloseNow() })
	c := &wsClient{t: t, conn: conn, ctx: ctx}
	c.send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + token}})
	if m := c.read(); m.Type != "connection_ack" {
		t.Fatalf("connection_init answered %+v", m)
	}
	return c
}

type wsMessage struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

func (c *wsClient) send(v any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	if err := c.conn.Write(c.ctx, websocket.MessageText, b); err != nil {
		c.t.Fatal(err)
	}
}

func (c *wsClient) read() wsMessage {
	c.t.Helper()
	m, err := c.tryRead()
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

// tryRead returns the next message that is not a ping (answering pings).
func (c *wsClient) tryRead() (wsMessage, error) {
	for {
		_, b, err := c.conn.Read(c.ctx)
		if err != nil {
			return wsMessage{}, err
		}
		var m wsMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return wsMessage{}, err
		}
		if m.Type == "ping" {
			c.send(map[string]any{"type": "pong"})
			continue
		}
		return m, nil
	}
}

func (c *wsClient) subscribe(id, query string, vars map[string]any) {
	c.send(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}})
}

// next returns the next update of any subscription.
func (c *wsClient) next() update {
	c.t.Helper()
	m := c.read()
	if m.Type != "next" {
		c.t.Fatalf("got %s %s, want next", m.Type, m.Payload)
	}
	var u update
	if err := json.Unmarshal(m.Payload, &u); err != nil {
		c.t.Fatal(err)
	}
	if len(u.Errors) > 0 {
		c.t.Fatalf("update with errors: %s", m.Payload)
	}
	return u
}

// sseSubscribe opens a subscription as a text/event-stream POST and
// returns a function reading its next update.
func sseSubscribe(t *testing.T, ctx context.Context, srvURL, token, query string, vars map[string]any) func() update {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srvURL+"/graphql", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q, status %d", ct, resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return func() update {
		t.Helper()
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "next":
				var u update
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &u); err != nil {
					t.Fatal(err)
				}
				if len(u.Errors) > 0 {
					t.Fatalf("update with errors: %s", line)
				}
				return u
			case strings.HasPrefix(line, "data: "):
				t.Fatalf("event %q: %s", event, line)
			}
		}
		t.Fatalf("stream ended: %v", sc.Err())
		return update{}
	}
}
