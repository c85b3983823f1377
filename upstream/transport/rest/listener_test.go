package rest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// rawServer serves h behind rest.Listener on 127.0.0.1:0, with the
// server's settings of okrgate serve; it returns the address.
func rawServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, MaxHeaderBytes: 64 << 10, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(rest.Listener(ln, rest.ListenerOptions{MaxHeaderBytes: srv.MaxHeaderBytes})) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// sendRaw writes raw to a new connection (concurrently, as a client that
// keeps sending while the server answers) and reads one response.
func sendRaw(t *testing.T, addr, raw string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second)) // stops a hang; asserts no timing
	go func() { _, _ = io.WriteString(conn, raw) }()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to %.60q: %v", raw, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

// checkRawProblem asserts a problem answer with the request id in both the
// header and the body.
func checkRawProblem(t *testing.T, res *http.Response, body []byte, status int, code, detail string) {
	t.Helper()
	var p rest.Problem
	if err := json.Unmarshal(body, &p); err != nil || res.StatusCode != status || res.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("got %d %q %.300s, want %d application/problem+json (%v)", res.StatusCode, res.Header.Get("Content-Type"), body, status, err)
	}
	id := res.Header.Get("X-Request-Id")
	if p.Code != code || p.Status != status || p.RequestID == "" || p.RequestID != id || !strings.Contains(p.Detail, detail) {
		t.Errorf("problem %+v (X-Request-Id %q), want code %s and a detail with %q", p, id, code, detail)
	}
}

// TestListenerProblems: the requests net/http's server answers itself, in
// plain text, get problem answers with a request id through rest.Listener,
// sent as raw bytes over TCP.
func TestListenerProblems(t *testing.T) {
	addr := rawServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "handler")
		_, _ = io.WriteString(w, "ok")
	}))
	tests := []struct {
		name, raw    string
		status       int
		code, detail string
	}{
		{"1 MB query string", "GET /api/v2/integrations/goals?filter=" + strings.Repeat("a", 1<<20) + " HTTP/1.1\r\nHost: x\r\n\r\n",
			431, "headers_too_large", "larger than 65536 bytes"},
		{"1 MB header", "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("a", 1<<20) + "\r\n\r\n", 431, "headers_too_large", ""},
		{"NUL byte in the request line", "GET /api/v2/sessions?a=\x00b HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed_request", "could not be parsed"},
		{"malformed request line", "GARBAGE\r\n\r\n", 400, "malformed_request", ""},
		{"missing Host", "GET / HTTP/1.1\r\n\r\n", 400, "malformed_request", "missing required Host header"},
		{"bad header name", "GET / HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n", 400, "malformed_request", "invalid header name"},
		{"unknown transfer coding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "unsupported_transfer_encoding", ""},
		{"unknown HTTP version", "GET / HTTP/9.9\r\nHost: x\r\n\r\n", 505, "unsupported_http_version", ""},
		{"unknown expectation", "GET / HTTP/1.1\r\nHost: x\r\nExpect: magic\r\n\r\n", 417, "expectation_failed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := sendRaw(t, addr, tt.raw)
			checkRawProblem(t, res, body, tt.status, tt.code, tt.detail)
		})
	}
}

// TestListenerKeepAlive: handler answers pass through untouched on a
// kept-alive connection, and a bad request after good ones on the same
// connection still gets a problem answer.
func TestListenerKeepAlive(t *testing.T) {
	addr := rawServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A body that looks like the server's own answer must pass as is.
		_, _ = io.WriteString(w, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request")
	}))
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(conn)
	for i := range 3 {
		fmt.Fprintf(conn, "GET /%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Close || !strings.HasPrefix(string(body), "HTTP/1.1 400 Bad Request") {
			t.Fatalf("request %d: %d close=%v %q", i, res.StatusCode, res.Close, body)
		}
	}
	fmt.Fprintf(conn, "GET /?\x00 HTTP/1.1\r\nHost: x\r\n\r\n")
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	checkRawProblem(t, res, body, 400, "malformed_request", "")
}

// TestListenerWebSocket: a hijacked connection (a WebSocket) works through
// the listener both ways.
func TestListenerWebSocket(t *testing.T) {
	addr := rawServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			typ, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if err := c.Write(r.Context(), typ, msg); err != nil {
				return
			}
		}
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for _, msg := range []string{"hello", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"} {
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, got, err := c.Read(ctx)
		if err != nil || string(got) != msg {
			t.Fatalf("echo of %q: %q, %v", msg, got, err)
		}
	}
	_ = c.Close(websocket.StatusNormalClosure, "")
}
