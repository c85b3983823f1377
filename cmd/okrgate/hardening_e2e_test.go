package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHardeningEndToEnd checks, on the built binary, that bad input is
// refused with problem bodies (huge numbers, oversized declared bodies,
// long URLs and headers) and that conditional and idempotent requests work
// over a real SQLite file.
func TestHardeningEndToEnd(t *testing.T) {
	hc := conformingClient(t)
	db := filepath.Join(t.TempDir(), "hard.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db)
	c := client{t: t, hc: hc, base: srv.base, token: boot.Token, acct: boot.AccountID}

	sess := c.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)
	goal := c.must("POST", "/api/v1/goals", map[string]any{"name": "Grow", "sessionId": sess["id"]}, 201)
	kr := c.must("POST", "/api/v1/metrics", map[string]any{"name": "Revenue", "goalId": goal["id"], "target": 100}, 201)
	krPath := "/api/v1/metrics/" + kr["id"].(string)

	// send makes one request with extra headers and returns status, headers
	// and body; error answers must be problem bodies.
	send := func(method, path, body string, header map[string]string) (int, http.Header, []byte) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		r, err := http.NewRequest(method, srv.base+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+boot.Token)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		for k, v := range header {
			r.Header.Set(k, v)
		}
		res, err := hc.Do(r)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 400 && res.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: %d with %q: %.200s", method, path, res.StatusCode, res.Header.Get("Content-Type"), b)
		}
		return res.StatusCode, res.Header, b
	}
	problem := func(wantStatus int, wantCode, field string, status int, body []byte) {
		t.Helper()
		var p struct {
			Code   string `json:"code"`
			Errors []struct {
				Field string `json:"field"`
			} `json:"errors"`
		}
		_ = json.Unmarshal(body, &p)
		if status != wantStatus || p.Code != wantCode || field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != field) {
			t.Errorf("got %d %.300s, want %d %s field %q", status, body, wantStatus, wantCode, field)
		}
	}

	// Huge numbers.
	st, _, b := send("POST", krPath+"/checkin", `{"actual":1e297}`, nil)
	problem(400, "invalid_input", "actual", st, b)
	// Duplicate keys, NUL characters.
	st, _, b = send("POST", krPath+"/checkin", `{"actual":1,"actual":2}`, nil)
	problem(400, "invalid_input", "actual", st, b)
	st, _, b = send("POST", krPath+"/checkin", `{"actual":1,"comment":"a\u0000"}`, nil)
	problem(400, "invalid_input", "comment", st, b)
	// An over-long URL and header fields.
	st, _, b = send("GET", "/api/v2/sessions?filter="+strings.Repeat("x", 20<<10), "", nil)
	problem(414, "uri_too_long", "", st, b)
	st, _, b = send("GET", "/api/v2/sessions", "", map[string]string{"X-Pad": strings.Repeat("x", 40<<10)})
	problem(431, "headers_too_large", "", st, b)

	// A declared body over the limit: 413 before any body byte is sent.
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second)) // stops a hang, asserts no timing
	fmt.Fprintf(conn, "POST %s/checkin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n", krPath, boot.Token)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a declared 10 GB body: %v", err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	problem(413, "request_too_large", "", res.StatusCode, b)

	// Optimistic concurrency.
	_, h, _ := send("GET", krPath, "", nil)
	etag := h.Get("ETag")
	if etag == "" {
		t.Fatal("GET of a key result has no ETag")
	}
	if st, _, _ := send("GET", krPath, "", map[string]string{"If-None-Match": etag}); st != 304 {
		t.Errorf("If-None-Match with the current ETag: %d, want 304", st)
	}
	st, h, _ = send("PATCH", krPath, `{"name":"Revenue (EUR)"}`, map[string]string{"If-Match": etag})
	if st != 200 || h.Get("ETag") == "" || h.Get("ETag") == etag {
		t.Errorf("PATCH with the current If-Match: %d ETag %q", st, h.Get("ETag"))
	}
	st, _, b = send("PATCH", krPath, `{"name":"Revenue (USD)"}`, map[string]string{"If-Match": etag})
	problem(412, "precondition_failed", "", st, b)

	// Idempotency-Key: two POSTs, one check-in.
	key := map[string]string{"Idempotency-Key": "e2e-checkin-1"}
	st1, _, b1 := send("POST", krPath+"/checkin", `{"actual":40}`, key)
	st2, h2, b2 := send("POST", krPath+"/checkin", `{"actual":40}`, key)
	if st1 != 201 || st2 != 201 || string(b1) != string(b2) || h2.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retried check-in: %d %s / %d %s", st1, b1, st2, b2)
	}
	if hist := c.must("GET", krPath+"/checkins", nil, 200); num(hist["totalCount"]) != 1 {
		t.Errorf("%v check-ins after a retried POST, want 1", hist["totalCount"])
	}
	st, _, b = send("POST", krPath+"/checkin", `{"actual":41}`, key)
	problem(422, "idempotency_key_reused", "", st, b)
	srv.stop(t)
}
