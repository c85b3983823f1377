package rest_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// FuzzRoutes sends arbitrary query strings and bodies to every route of the
// table, with path ids that name real items, unknown ids or garbage, on a
// real SQLite store. Whatever comes in, the answer is never a 5xx (a panic
// is recovered as a 500, so it fails too), and every error is a problem
// body.
//
//	go test ./upstream/transport/rest -run '^$' -fuzz FuzzRoutes -fuzztime 120s -fuzzminimizetime 1s
//
// (Each run hits SQLite; minimizing a large new input at the default 60 s
// shows as minutes of 0 execs/sec.)
func FuzzRoutes(f *testing.F) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, sqlstoretest.DSN(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Fuzz", Email: "fuzz@fuzz.test"})
	if err != nil {
		f.Fatal(err)
	}
	c, err := st.Authenticate(ctx, boot.Token)
	if err != nil {
		f.Fatal(err)
	}
	cctx := upstream.NewContext(ctx, c)
	ids := []string{boot.UserID, boot.AccountID, "000000000000000000000000", "x", "%2e%2e", ""}
	add := func(id string, err error) {
		if err != nil {
			f.Fatal(err)
		}
		ids = append(ids, id)
	}
	s, err := st.CreateSession(cctx, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"})
	add(s.ID, err)
	g, err := st.CreateGoal(cctx, upstream.GoalInput{Name: "Grow", SessionID: s.ID, Tags: []upstream.TagInput{{Title: "Growth"}}})
	add(g.ID, err)
	m, err := st.CreateMetric(cctx, upstream.MetricInput{Name: "ARR", GoalID: g.ID, Target: ptr(100.0)})
	add(m.ID, err)
	ci, err := st.CheckIn(cctx, m.ID, upstream.CheckInInput{Actual: ptr(10.0)})
	add(ci.ID, err)
	tk, err := st.CreateTask(cctx, upstream.TaskInput{Name: "Call", ParentID: g.ID})
	add(tk.ID, err)
	tm, err := st.CreateTeam(cctx, upstream.TeamInput{Name: "Sales", Members: []string{boot.UserID}})
	add(tm.ID, err)
	d, err := st.CreateDashboard(cctx, upstream.DashboardInput{Name: "Board"})
	add(d.ID, err)
	b, err := st.CreateBadge(cctx, upstream.BadgeInput{Name: "Star"})
	add(b.ID, err)
	r, err := st.CreateRole(cctx, upstream.RoleInput{Name: "Lead"})
	add(r.ID, err)

	h := rest.New(st, rest.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Webhooks: st, Events: st, Auth: st})
	routes := rest.Routes()
	param := regexp.MustCompile(`\{[^}]+\}`)
	for i := range routes {
		f.Add(uint16(i), uint8(i), "", []byte(`{}`))
		f.Add(uint16(i), uint8(i+1), "limit=2&skip=1", []byte(`{"name":"x","title":"y","ids":[]}`))
	}
	f.Add(uint16(0), uint8(0), `filter={"$or":[{"name":{"$regex":"a","$options":"i"}}]}&fields=name,metrics{name}&sort=-name`, []byte(nil))
	// Hostile bodies, with the conditional and idempotency headers (the
	// top four bits of ri choose them).
	for i, body := range []string{`{"actual":1e297}`, `{"target":1e308,"initialValue":-1e308}`, `{"name":"a","name":"b"}`,
		`{"name":"a\u0000"}`, "{\"name\":\"\xff\"}", `{"title":"\ud800"}`, `{"priority":1e30}`} {
		for hdr := range uint16(16) {
			f.Add(uint16(i*7)|hdr<<12, uint8(i), "", []byte(body))
		}
	}
	f.Fuzz(func(t *testing.T, ri uint16, idSel uint8, rawQuery string, body []byte) {
		rt := routes[int(ri)%len(routes)]
		n := int(idSel)
		path := param.ReplaceAllStringFunc(rt.Pattern, func(string) string {
			id := ids[n%len(ids)]
			n /= 3
			return id
		})
		u, err := url.Parse(path)
		if err != nil {
			return
		}
		if _, err := url.ParseQuery(rawQuery); err != nil {
			return
		}
		u.RawQuery = rawQuery
		// Built by hand: the raw query goes to the handler as it came,
		// without a request line to parse.
		req := httptest.NewRequest(http.MethodGet, "http://okrgate.test/", nil)
		req.Method, req.URL, req.RequestURI = rt.Method, u, u.RequestURI()
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		req.Header.Set("Authorization", "Bearer "+boot.Token)
		req.Header.Set("service-accountId", boot.AccountID)
		if len(body) > 0 {
			req.Header.Set("Content-Type", "application/json")
		}
		hdr := ri >> 12
		if hdr&1 != 0 {
			req.Header.Set("If-Match", []string{"*", `"0f"`, "bogus"}[int(idSel)%3])
		}
		if hdr&2 != 0 {
			req.Header.Set("Idempotency-Key", "fuzz-"+strconv.Itoa(int(idSel)))
		}
		if hdr&4 != 0 {
			req.Header.Set("If-None-Match", []string{"*", `"0f"`, "bogus"}[int(idSel)%3])
		}
		if hdr&8 != 0 {
			req.Header.Set("X-Pad", strings.Repeat("x", rest.MaxHeaderBytes))
		}
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() { defer close(done); h.ServeHTTP(rec, req) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s %s?%s with %q: no answer (a hang, not a slow answer)", rt.Method, path, rawQuery, body)
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %s?%s with %q: %d %s", rt.Method, path, rawQuery, body, rec.Code, rec.Body.Bytes())
		}
		if rec.Code >= 400 && rec.Header().Get("Content-Type") != "application/problem+json" || rec.Code == 304 && rec.Body.Len() > 0 {
			t.Fatalf("%s %s: %d with content type %q", rt.Method, path, rec.Code, rec.Header().Get("Content-Type"))
		}
	})
}
