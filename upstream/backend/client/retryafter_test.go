package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/client"
)

// TestRetryAfter: a client with MaxRetryAfter retries a read the upstream
// answered 429 with a Retry-After, and gives up at once on one asking for
// longer than it waits; without it (a gateway), the 429 is the answer.
func TestRetryAfter(t *testing.T) {
	var calls atomic.Int32
	after := "1"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", after)
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"g1"}`))
	}))
	defer srv.Close()
	ctx := upstream.NewContext(context.Background(), upstream.Caller{AccountID: "acc", Token: "tok"})
	for _, tc := range []struct {
		name     string
		maxWait  time.Duration
		after    string
		wait     time.Duration
		ok       bool
		requests int32
	}{
		{"honoured", time.Minute, "1", time.Second, true, 2},
		{"too long", time.Second, "120", 2 * time.Minute, false, 1},
		{"a gateway passes 429 on", 0, "1", time.Second, false, 1},
	} {
		calls.Store(0)
		after = tc.after
		c, err := client.New(srv.URL, client.Options{MaxRetryAfter: tc.maxWait, Retries: 3})
		if err != nil {
			t.Fatal(err)
		}
		g, err := c.GetGoal(ctx, "g1")
		if (err == nil) != tc.ok || calls.Load() != tc.requests {
			t.Errorf("%s: %v (%q), %d requests, want ok %v and %d", tc.name, err, g.ID, calls.Load(), tc.ok, tc.requests)
		}
		if err != nil {
			if wait, ok := client.RetryAfter(err); !ok || wait != tc.wait {
				t.Errorf("%s: RetryAfter = %v %v, want %v", tc.name, wait, ok, tc.wait)
			}
		}
	}
}
