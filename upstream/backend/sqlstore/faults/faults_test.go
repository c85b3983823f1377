package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// The deadlines of the stores under test: short, so that the suite stays
// lean; the faults last until every request has been answered.
var testDeadlines = sqlstore.Deadlines{Connect: 2 * time.Second, Acquire: 2 * time.Second, Write: 3 * time.Second, TCP: 2 * time.Second}

// answer is what a client was told.
type answer struct {
	status     int
	code       string
	retryAfter string
	replayed   bool
	body       []byte
}

// env is a REST facade on a store, with an account holding one key result
// to check in on.
type env struct {
	t      *testing.T
	srv    *httptest.Server
	token  string
	acct   string
	metric string
	hc     *http.Client
}

func newEnv(t *testing.T, st *sqlstore.Store) *env {
	t.Helper()
	boot, err := st.Bootstrap(context.Background(), sqlstore.BootstrapInput{AccountName: "Faults", Email: "ops@faults.test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rest.New(st, rest.Options{Auth: st, ReadTimeout: 3 * time.Second, WriteTimeout: 5 * time.Second, Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil))}))
	t.Cleanup(srv.Close)
	e := &env{t: t, srv: srv, token: boot.Token, acct: boot.AccountID, hc: &http.Client{Timeout: 20 * time.Second}}
	var ss, g, m struct{ ID string }
	e.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2026-01-01", "end": "2026-03-31"}, &ss)
	e.must("POST", "/api/v1/goals", map[string]any{"name": "g", "sessionId": ss.ID}, &g)
	e.must("POST", "/api/v1/metrics", map[string]any{"name": "kr", "goalId": g.ID, "target": 1000}, &m)
	e.metric = m.ID
	return e
}

// testWriter writes the facade's log lines (the causes of errors) to
// the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }

// do sends a request (with an Idempotency-Key when key is not empty).
func (e *env) do(method, path string, body any, key string) (answer, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.srv.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("service-accountId", e.acct)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := e.hc.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, retryAfter: res.Header.Get("Retry-After"), replayed: res.Header.Get("Idempotent-Replayed") == "true", body: raw}
	if res.StatusCode >= 400 {
		var p rest.Problem
		_ = json.Unmarshal(raw, &p)
		a.code = p.Code
	}
	return a, nil
}

func (e *env) must(method, path string, body, dst any) {
	e.t.Helper()
	a, err := e.do(method, path, body, "")
	if err != nil || a.status/100 != 2 {
		e.t.Fatalf("%s %s: %v %d %s", method, path, err, a.status, a.body)
	}
	if dst != nil {
		if err := json.Unmarshal(a.body, dst); err != nil {
			e.t.Fatal(err)
		}
	}
}

// checkIn posts check-in value v with the Idempotency-Key of v.
func (e *env) checkIn(v int) (answer, error) {
	return e.do("POST", "/api/v1/metrics/"+e.metric+"/checkin", map[string]any{"actual": v}, "ci-"+strconv.Itoa(v))
}

// stored returns how many check-ins of each value the key result holds.
func (e *env) stored() map[int]int {
	e.t.Helper()
	var page struct {
		Items []struct {
			Actual float64 `json:"actual"`
		} `json:"items"`
	}
	e.must("GET", "/api/v1/metrics/"+e.metric+"/checkins?limit=1000", nil, &page)
	out := map[int]int{}
	for _, c := range page.Items {
		out[int(c.Actual)]++
	}
	return out
}

// faultAnswer checks an answer given during a fault: a 503 (or 507)
// with a code of the infrastructure and a Retry-After on every 503,
// never a 500.
func faultAnswer(t *testing.T, what string, a answer, codes ...upstream.Code) {
	t.Helper()
	ok := false
	for _, c := range codes {
		ok = ok || a.code == string(c)
	}
	if !ok || a.status != upstream.Code(a.code).Status() {
		t.Errorf("%s during the fault: %d %q (%s), want one of %v", what, a.status, a.code, a.body, codes)
	}
	if a.status == http.StatusServiceUnavailable && a.retryAfter == "" {
		t.Errorf("%s: 503 without Retry-After", what)
	}
}

// proxied opens a store on a new PostgreSQL schema reached through a
// Proxy.
func proxied(t *testing.T) (*sqlstore.Store, *Proxy) {
	t.Helper()
	st, p, _ := proxiedDirect(t)
	return st, p
}

// proxiedDirect is proxied, and the URL of the schema reached directly.
func proxiedDirect(t *testing.T) (*sqlstore.Store, *Proxy, string) {
	t.Helper()
	if os.Getenv(sqlstoretest.EnvPostgres) == "" {
		t.Skip("fault tests on PostgreSQL: set " + sqlstoretest.EnvPostgres)
	}
	direct := sqlstoretest.PostgresURL(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProxy(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	u.Host = p.Addr()
	// Every statement sent with its text (no prepared statements), so
	// that the proxy sees each COMMIT go by (CutAfter).
	q := u.Query()
	q.Set("default_query_exec_mode", "exec")
	u.RawQuery = q.Encode()
	st, err := sqlstore.Open(context.Background(), u.String(), sqlstore.WithDeadlines(testDeadlines))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, p, direct
}

// recovered waits until a check-in of v is acknowledged (the store came
// back by itself, without a restart) and records it.
func recovered(t *testing.T, e *env, v int, acked map[int]bool) {
	t.Helper()
	for range 300 {
		a, err := e.checkIn(v)
		if err == nil && a.status == http.StatusCreated {
			acked[v] = true
			return
		}
		if err == nil && a.status == http.StatusInternalServerError {
			t.Fatalf("500 while recovering: %s", a.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the store did not recover within 30 s of the fault's end")
}

// TestPostgresFaults: PostgreSQL goes away (every connection closed, new
// ones refused), then is cut off without a word (a partition: packets
// dropped), then a COMMIT is interrupted on its way back. Clients are
// told 503 with the right code and a Retry-After, each request is
// answered while the fault lasts (the deadlines, not the fault's end,
// bound it), the store recovers without a restart, every acknowledged
// check-in is stored once, and the interrupted one is outcome_unknown
// and, retried with its Idempotency-Key, stored exactly once.
func TestPostgresFaults(t *testing.T) {
	st, p := proxied(t)
	e := newEnv(t, st)
	acked := map[int]bool{}
	for v := 1; v <= 3; v++ {
		recovered(t, e, v, acked)
	}

	t.Run("down", func(t *testing.T) {
		p.Cut()
		for v := 100; v < 104; v++ {
			a, err := e.checkIn(v)
			if err != nil {
				t.Fatal(err)
			}
			faultAnswer(t, "check-in", a, upstream.CodeDatabaseUnavailable)
		}
		a, err := e.do("GET", "/api/v1/metrics/"+e.metric, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		faultAnswer(t, "read", a, upstream.CodeDatabaseUnavailable)
		p.Heal()
		recovered(t, e, 4, acked)
	})

	t.Run("partition", func(t *testing.T) {
		p.Blackhole()
		var wg sync.WaitGroup
		answers := make([]answer, 6)
		errs := make([]error, 6)
		for i := range answers {
			wg.Go(func() {
				if i%3 == 2 {
					answers[i], errs[i] = e.do("GET", "/api/v1/metrics/"+e.metric, nil, "")
					return
				}
				answers[i], errs[i] = e.checkIn(200 + i)
			})
		}
		wg.Wait() // every request answered while the partition lasts
		p.Heal()
		for i, a := range answers {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			// A write cut off after its COMMIT went out is outcome_unknown;
			// any other during a partition: unavailable or timeout.
			faultAnswer(t, fmt.Sprint("request ", i), a, upstream.CodeDatabaseUnavailable, upstream.CodeTimeout, upstream.CodeOutcomeUnknown)
			if a.status == http.StatusCreated {
				acked[200+i] = true
			}
		}
		recovered(t, e, 5, acked)
	})

	t.Run("interrupted commit", func(t *testing.T) {
		p.CutAfter([]byte("COMMIT"))
		a, err := e.checkIn(300)
		if err != nil {
			t.Fatal(err)
		}
		faultAnswer(t, "check-in whose COMMIT was cut", a, upstream.CodeOutcomeUnknown)
		p.Heal()
		// The retry with the same key: its recorded answer when the first
		// committed, the write applied now when it did not; once either way.
		for range 300 {
			if a, err = e.checkIn(300); err == nil && a.status != http.StatusServiceUnavailable {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		// 201: the first did not commit and the retry applied it (or its
		// answer was recorded); 409 idempotency_key_in_use: it committed.
		if err != nil || a.status != http.StatusCreated && a.code != string(upstream.CodeIdempotencyKeyInUse) {
			t.Fatalf("retry with the Idempotency-Key: %v %d %s", err, a.status, a.body)
		}
		acked[300] = true
		if n := e.stored()[300]; n != 1 {
			t.Errorf("the interrupted check-in is stored %d times, want once (replayed: %v)", n, a.replayed)
		}
	})

	stored := e.stored()
	for v := range acked {
		if stored[v] != 1 {
			t.Errorf("acknowledged check-in %d stored %d times", v, stored[v])
		}
	}
	for v, n := range stored {
		if n > 1 {
			t.Errorf("check-in %d stored %d times", v, n)
		}
	}
}

// TestSQLiteFull: a SQLite file that cannot grow (max_page_count: the
// size limit of a full disk, without one) answers writes 507 storage_full,
// reads as before, and takes writes again once it may grow.
func TestSQLiteFull(t *testing.T) {
	if sqlstoretest.Postgres() {
		t.Skip("SQLite's test")
	}
	path := t.TempDir() + "/full.db"
	st, err := sqlstore.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := newEnv(t, st)
	acked := map[int]bool{}
	recovered(t, e, 1, acked)

	var pages int
	if err := st.Pools()["write"].QueryRowContext(context.Background(), "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	setMax := func(n int) {
		t.Helper()
		// The pool has one writer connection; the pragma holds for it.
		if _, err := st.Pools()["write"].ExecContext(context.Background(), fmt.Sprintf("PRAGMA max_page_count = %d", n)); err != nil {
			t.Fatal(err)
		}
	}
	setMax(pages)
	full := false
	for v := 100; v < 400 && !full; v++ {
		a, err := e.checkIn(v)
		if err != nil {
			t.Fatal(err)
		}
		switch a.status {
		case http.StatusCreated:
			acked[v] = true
		default:
			faultAnswer(t, "check-in on a full file", a, upstream.CodeStorageFull)
			full = true
		}
	}
	if !full {
		t.Fatal("the file never filled up")
	}
	if a, err := e.do("GET", "/api/v1/metrics/"+e.metric, nil, ""); err != nil || a.status != http.StatusOK {
		t.Fatalf("read on a full file: %v %d %s", err, a.status, a.body)
	}
	setMax(1 << 30)
	recovered(t, e, 2, acked)
	stored := e.stored()
	for v := range acked {
		if stored[v] != 1 {
			t.Errorf("acknowledged check-in %d stored %d times", v, stored[v])
		}
	}
}
