package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// failing is an upstream.API whose GetGoal fails with the code named by the
// id's position in codes: the REST facade renders the error, the client must
// map it back. Every other method is absent (nil embedded interface).
type failing struct {
	upstream.API
	codes []upstream.Code
}

func (f failing) Authenticate(ctx context.Context, token string) (upstream.Caller, error) {
	return upstream.Caller{AccountID: "acc", UserID: "usr", Token: token}, nil
}

func (f failing) GetGoal(ctx context.Context, id string) (upstream.Goal, error) {
	for i, c := range f.codes {
		if id == idOf(i) {
			return upstream.Goal{}, &upstream.Error{Code: c, Message: "because " + string(c), Fields: []upstream.FieldError{{Field: "f", Message: "m"}}}
		}
	}
	return upstream.Goal{ID: id}, nil
}

// Writing binds nothing: the facade binds the options of every PATCH and
// DELETE of a versioned resource, and failing's writes fail before any
// option would matter.
func (f failing) Writing(upstream.WriteOptions) upstream.API { return f }

// DeleteTask fails like GetGoal: with the code at the id's position.
func (f failing) DeleteTask(ctx context.Context, id string) error {
	_, err := f.GetGoal(ctx, id)
	return err
}

// Version knows no versions: the facade's conditional GET then answers
// without an ETag.
func (f failing) Version(ctx context.Context, kind, id string) (string, error) {
	return "", upstream.NotFound(kind, id)
}

func idOf(i int) string {
	return strings.Repeat("0", 22) + string(rune('a'+i/16)) + string("0123456789abcdef"[i%16])
}

// passesThrough reports whether the client answers c, a 5xx code, as the
// upstream did rather than as unavailable: a write whose outcome is
// unknown and a full database.
func passesThrough(c upstream.Code) bool {
	return c == upstream.CodeOutcomeUnknown || c == upstream.CodeStorageFull
}

// upstreamFailure reports whether the client answers c as the upstream
// failing (unavailable): a 5xx that does not pass through, and a 429 (the
// upstream shedding load).
func upstreamFailure(c upstream.Code) bool {
	return (c.Status() >= 500 || c.Status() == http.StatusTooManyRequests) && !passesThrough(c)
}

// allCodes are the error codes of the error table (upstream.Codes).
func allCodes() []upstream.Code {
	var out []upstream.Code
	for _, row := range upstream.Codes() {
		if row.GraphQLOnly {
			continue // REST never answers it
		}
		out = append(out, row.Code)
	}
	return out
}

// TestErrorCodesRoundTrip: every upstream code rendered by the facade comes
// back from the client as the same code with its message and fields —
// except those of a 5xx status, which are an upstream failure to the
// gateway (unavailable) unless they pass through, and not_modified, whose 304 has no body (its
// message travels in X-Message).
func TestErrorCodesRoundTrip(t *testing.T) {
	codes := allCodes()
	srv := httptest.NewServer(rest.New(failing{codes: codes}, rest.Options{Auth: failing{codes: codes}}))
	defer srv.Close()
	c, err := client.New(srv.URL, client.Options{Retries: -1, BreakerFailures: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ctx := upstream.NewContext(context.Background(), upstream.Caller{AccountID: "acc", UserID: "usr", Token: "t"})
	for i, code := range codes {
		_, err := c.GetGoal(ctx, idOf(i))
		want := code
		if upstreamFailure(code) {
			want = upstream.CodeUnavailable
		}
		if got := upstream.ErrorCode(err); got != want {
			t.Errorf("%s: client answered %s (%v), want %s", code, got, err, want)
			continue
		}
		var ue *upstream.Error
		errors.As(err, &ue)
		switch {
		case upstreamFailure(code):
		case passesThrough(code):
			if ue.Message != "because "+string(code) {
				t.Errorf("%s: message %q", code, ue.Message)
			}
		case code == upstream.CodeNotModified:
			if ue.Message != "because not_modified" {
				t.Errorf("%s: message %q", code, ue.Message)
			}
		default:
			if ue.Message != "because "+string(code) || len(ue.Fields) != 1 || ue.Fields[0].Field != "f" {
				t.Errorf("%s: message %q fields %v", code, ue.Message, ue.Fields)
			}
		}
	}
	if _, err := c.GetGoal(ctx, idOf(len(codes))); err != nil {
		t.Errorf("a goal without error: %v", err)
	}
}

// TestUnavailableWhenDown: a refused connection is unavailable, and after
// BreakerFailures of them the breaker answers without trying; Ready fails.
func TestUnavailableWhenDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	reg := prometheus.NewRegistry()
	c, err := client.New("http://"+addr, client.Options{Retries: -1, BreakerFailures: 3, BreakerOpen: time.Hour, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	ctx := upstream.NewContext(context.Background(), upstream.Caller{AccountID: "acc", UserID: "usr", Token: "t"})
	for range 5 {
		if _, err := c.GetGoal(ctx, idOf(0)); upstream.ErrorCode(err) != upstream.CodeUnavailable {
			t.Fatalf("GetGoal on a closed port: %v", err)
		}
	}
	if n := testutil.ToFloat64(calls(t, reg, "error")); n != 3 {
		t.Errorf("requests sent = %v, want 3 (then the breaker opens)", n)
	}
	if n := testutil.ToFloat64(calls(t, reg, "breaker_open")); n != 2 {
		t.Errorf("requests refused by the breaker = %v, want 2", n)
	}
	if err := c.Ready(context.Background()); upstream.ErrorCode(err) != upstream.CodeUnavailable {
		t.Errorf("Ready = %v", err)
	}
	if _, err := c.Authenticate(context.Background(), "tok"); upstream.ErrorCode(err) != upstream.CodeUnavailable {
		t.Errorf("Authenticate = %v", err)
	}
}

// calls is the GET /api/v1/goals/{id} request counter with status.
func calls(t *testing.T, reg *prometheus.Registry, status string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "x"})
	for _, mf := range mfs {
		if mf.GetName() != "okrgate_upstream_http_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["route"] == "/api/v1/goals/{id}" && labels["status"] == status {
				g.Set(m.GetCounter().GetValue())
			}
		}
	}
	return g
}

// TestDeadlineHolds: an upstream that never answers fails the call when the
// caller's deadline passes, with the unavailable code.
func TestDeadlineHolds(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := client.New(srv.URL, client.Options{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(upstream.NewContext(context.Background(), upstream.Caller{AccountID: "acc", Token: "t"}), 100*time.Millisecond)
	defer cancel()
	if _, err := c.GetGoal(ctx, idOf(0)); upstream.ErrorCode(err) != upstream.CodeUnavailable || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("GetGoal on a hanging upstream: %v", err)
	}
}

// TestRetriesReadsOn503: a read answered 503 is sent again; a write is not.
func TestRetriesReadsOn503(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%3 != 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"` + idOf(0) + `","name":"ok"}`))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, client.Options{Retries: 2, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := upstream.NewContext(context.Background(), upstream.Caller{AccountID: "acc", Token: "t"})
	g, err := c.GetGoal(ctx, idOf(0))
	if err != nil || g.Name != "ok" || n.Load() != 3 {
		t.Fatalf("GetGoal = %v, %v after %d requests; want ok after 3", g, err, n.Load())
	}
	n.Store(0)
	if _, err := c.UpdateGoal(ctx, idOf(0), upstream.GoalPatch{}); upstream.ErrorCode(err) != upstream.CodeUnavailable || n.Load() != 1 {
		t.Fatalf("UpdateGoal = %v after %d requests; want unavailable after 1", err, n.Load())
	}
}
