package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInputCostEndToEnd checks, on the built binary, the bounds on what one
// request may cost: a $regex filter whose program is too large, and twenty
// of them under $or, are refused with a 400 that names the limit; a 1 MB
// query string and a NUL byte in the request line — answered by Go's HTTP
// parser before any handler — get problem bodies with a request id, over
// raw TCP.
func TestInputCostEndToEnd(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cost.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db)
	c := client{t: t, hc: conformingClient(t), base: srv.base, token: boot.Token, acct: boot.AccountID}

	heavy := `{"description":{"$regex":"(?:a?){1000}a{1000}b"}}`
	var or strings.Builder
	or.WriteString(`{"$or":[`)
	for i := range 20 {
		if i > 0 {
			or.WriteByte(',')
		}
		or.WriteString(`{"description":{"$regex":"(?:a?){100}a{100}b"}}`)
	}
	or.WriteString(`]}`)
	for _, f := range []string{heavy, or.String()} {
		st, p, _ := c.do("GET", "/api/v2/integrations/goals?fields=id&filter="+url.QueryEscape(f), nil)
		detail, _ := p["detail"].(string)
		if st != 400 || p["code"] != "invalid_filter" || !strings.Contains(detail, "the limit is 100 per regular expression") {
			t.Errorf("filter %.60s: %d %v, want 400 invalid_filter naming the limit", f, st, p)
		}
	}

	addr := strings.TrimPrefix(srv.base, "http://")
	for _, tt := range []struct {
		name, raw string
		status    int
		code      string
	}{
		{"1 MB query string", "GET /api/v2/integrations/goals?filter=" + strings.Repeat("a", 1<<20) + " HTTP/1.1\r\nHost: x\r\n\r\n", 431, "headers_too_large"},
		{"NUL byte in the request line", "GET /api/v2/integrations/goals?filter=\x00 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed_request"},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(20 * time.Second)) // stops a hang; asserts no timing
		go func() { _, _ = io.WriteString(conn, tt.raw) }()
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: no answer: %v", tt.name, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		conn.Close()
		var p struct {
			Code      string `json:"code"`
			Status    int    `json:"status"`
			RequestID string `json:"requestId"`
		}
		err = json.Unmarshal(body, &p)
		if err != nil || res.StatusCode != tt.status || res.Header.Get("Content-Type") != "application/problem+json" ||
			p.Code != tt.code || p.Status != tt.status || p.RequestID == "" || p.RequestID != res.Header.Get("X-Request-Id") {
			t.Errorf("%s: %d %q %.200s, want %d problem %s with a request id", tt.name, res.StatusCode, res.Header.Get("Content-Type"), body, tt.status, tt.code)
			continue
		}
		// The refusal is logged with the id the client was given.
		want := "request_id=" + p.RequestID
		deadline := time.Now().Add(20 * time.Second) // bounds a failure; asserts no timing
		for !strings.Contains(srv.logs.String(), want) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !strings.Contains(srv.logs.String(), want) {
			t.Errorf("%s: request id %s not in the server log", tt.name, p.RequestID)
		}
	}
	srv.stop(t)
}
