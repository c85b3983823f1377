package client_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/query"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// TestProjectionForwarded: a listing's projection travels as include, so
// the upstream computes only the enrichments asked for (a goal's tags only
// when the projection names them) and still returns every stored field;
// an upstream whose document has no include gets the widened fields and
// computes everything.
func TestProjectionForwarded(t *testing.T) {
	for _, tc := range []struct {
		name        string
		opts        rest.Options
		include     bool
		tagsSkipped bool
	}{
		{"include", rest.Options{}, true, true},
		{"documented only", rest.Options{NoGatewayRoutes: true}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, tc.opts)
			var mu sync.Mutex
			var queries []string
			rec := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if r.Method == http.MethodGet && r.URL.Path == "/api/v2/integrations/goals" {
					mu.Lock()
					queries = append(queries, r.URL.RawQuery)
					mu.Unlock()
				}
				return client.NewTransport().RoundTrip(r)
			})
			c := b.newClient(t, client.Options{Transport: rec})
			caps, err := c.Discover(context.Background())
			if err != nil || caps.Include != tc.include {
				t.Fatalf("Discover = %+v, %v; want Include %v", caps, err, tc.include)
			}
			caller, err := c.Authenticate(context.Background(), b.env.Admin)
			if err != nil {
				t.Fatal(err)
			}
			ctx := upstream.NewContext(context.Background(), caller)
			s, err := c.CreateSession(ctx, upstream.SessionInput{Title: "Q1", Start: "2027-01-01", End: "2027-03-31"})
			if err != nil {
				t.Fatal(err)
			}
			g, err := c.CreateGoal(ctx, upstream.GoalInput{Name: "g", SessionID: s.ID})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.AddGoalTag(ctx, g.ID, "Gateway"); err != nil {
				t.Fatal(err)
			}
			list := func(p query.Projection) upstream.Goal {
				t.Helper()
				page, err := c.ListGoals(ctx, upstream.ListQuery{Filter: query.Eq("id", g.ID), Fields: p})
				if err != nil || len(page.Items) != 1 || page.Items[0].Name != "g" || page.Items[0].SessionID != s.ID {
					t.Fatalf("ListGoals(%v) = %+v, %v", p, page, err)
				}
				return page.Items[0]
			}
			if got := list(query.Projection{"id": nil}); (len(got.Tags) == 0) != tc.tagsSkipped {
				t.Errorf("projection {id}: tags %+v; want them skipped: %v", got.Tags, tc.tagsSkipped)
			}
			if got := list(query.Projection{"id": nil, "tags": nil}); len(got.Tags) != 1 {
				t.Errorf("projection {id, tags}: tags %+v", got.Tags)
			}
			if got := list(nil); len(got.Tags) != 1 {
				t.Errorf("no projection: tags %+v", got.Tags)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(queries) != 3 {
				t.Fatalf("goal listings sent: %q", queries)
			}
			sent := strings.Contains(queries[0], "include=id&") || strings.HasSuffix(queries[0], "include=id")
			if sent != tc.include || strings.Contains(queries[2], "include") || strings.Contains(queries[2], "fields") {
				t.Errorf("queries sent: %q (include expected: %v)", queries, tc.include)
			}
		})
	}
}

// TestRepresentationSavesCalls: UpdateBadge, a badge rejection and
// AddGoalTag of a tag the goal carries are one upstream call each, since
// the client asks for the item in the answer (Prefer:
// return=representation); against an upstream that ignores the preference
// (here: a transport that drops the header) they cost one read more and
// answer the same.
func TestRepresentationSavesCalls(t *testing.T) {
	for _, tc := range []struct {
		name      string
		strip     bool
		wantCalls int64
	}{
		{"honoured", false, 1},
		{"ignored", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, rest.Options{})
			var calls atomic.Int64
			rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				calls.Add(1)
				if tc.strip {
					r.Header.Del("Prefer")
				}
				return client.NewTransport().RoundTrip(r)
			})
			c := b.newClient(t, client.Options{Transport: rt})
			caller, err := c.Authenticate(context.Background(), b.env.Admin)
			if err != nil {
				t.Fatal(err)
			}
			ctx := upstream.NewContext(context.Background(), caller)
			count := func(what string, f func() error) {
				t.Helper()
				before := calls.Load()
				if err := f(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if n := calls.Load() - before; n != tc.wantCalls {
					t.Errorf("%s: %d upstream calls, want %d", what, n, tc.wantCalls)
				}
			}
			bdg, err := c.CreateBadge(ctx, upstream.BadgeInput{Name: "Closer", Summary: "a", Icon: "star"})
			if err != nil {
				t.Fatal(err)
			}
			summary := "b"
			count("UpdateBadge", func() error {
				got, err := c.UpdateBadge(ctx, bdg.ID, upstream.BadgePatch{Summary: &summary})
				if err == nil && (got.ID != bdg.ID || got.Summary != "b" || got.Name != "Closer") {
					t.Errorf("UpdateBadge = %+v", got)
				}
				return err
			})
			asg, err := c.AssignBadge(ctx, upstream.AssignBadgeInput{BadgeID: bdg.ID, AssigneeIDs: []string{caller.UserID}})
			if err != nil {
				t.Fatal(err)
			}
			count("DecideBadge(reject)", func() error {
				got, err := c.DecideBadge(ctx, asg.ID, false)
				if err == nil && (got.ID != asg.ID || got.Status != upstream.BadgeRejected) {
					t.Errorf("DecideBadge(reject) = %+v", got)
				}
				return err
			})
			s, err := c.CreateSession(ctx, upstream.SessionInput{Title: "Q1", Start: "2027-01-01", End: "2027-03-31"})
			if err != nil {
				t.Fatal(err)
			}
			g, err := c.CreateGoal(ctx, upstream.GoalInput{Name: "g", SessionID: s.ID})
			if err != nil {
				t.Fatal(err)
			}
			first, added, err := c.AddGoalTag(ctx, g.ID, "Gateway")
			if err != nil || !added {
				t.Fatalf("AddGoalTag = %+v, %v, %v", first, added, err)
			}
			count("AddGoalTag(carried)", func() error {
				got, added, err := c.AddGoalTag(ctx, g.ID, "gateway")
				if err == nil && (added || got.ID != first.ID || got.Title != first.Title) {
					t.Errorf("AddGoalTag(carried) = %+v, %v; want %+v, false", got, added, first)
				}
				return err
			})
		})
	}
}
