package live_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// rightsCounter is the store as the live fan-out's AuthService and event
// log, recording its checks of rights: each Authenticate, and the tokens
// of each AuthenticateMany and the callers of each VisibilityClasses.
type rightsCounter struct {
	*sqlstore.Store
	mu      sync.Mutex
	singles int
	batches [][]string
	classes [][]upstream.Caller
}

func (r *rightsCounter) Authenticate(ctx context.Context, token string) (upstream.Caller, error) {
	r.mu.Lock()
	r.singles++
	r.mu.Unlock()
	return r.Store.Authenticate(ctx, token)
}

func (r *rightsCounter) AuthenticateMany(ctx context.Context, tokens []string) ([]upstream.Authentication, error) {
	r.mu.Lock()
	r.batches = append(r.batches, tokens)
	r.mu.Unlock()
	return r.Store.AuthenticateMany(ctx, tokens)
}

func (r *rightsCounter) VisibilityClasses(ctx context.Context, callers []upstream.Caller) ([]string, error) {
	r.mu.Lock()
	r.classes = append(r.classes, callers)
	r.mu.Unlock()
	return r.Store.VisibilityClasses(ctx, callers)
}

// reset forgets what was recorded.
func (r *rightsCounter) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.singles, r.batches, r.classes = 0, nil, nil
}

// TestFanoutChecksRightsPerDistinctToken subscribes three users (two
// viewers and the admin) with one connection each, checks in, then with
// four connections each, and checks in again: each batch of events checks
// the three tokens in one AuthenticateMany and derives the three users'
// classes in one VisibilityClasses, whatever the number of subscribers,
// and no connection checks its token on its own.
func TestFanoutChecksRightsPerDistinctToken(t *testing.T) {
	e := newLiveEnv(t, &live.Hub{})
	rc := &rightsCounter{Store: e.store}
	hub := &live.Hub{Log: rc, Classes: rc, Poll: time.Hour} // woken by the store only: no extra batch
	srv := httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: e.store, Auth: rc, Live: hub}))
	t.Cleanup(srv.Close)
	tr := e.tree(e.adminCtx)
	users := []sqlstore.BootstrapResult{e.viewer, e.user("v2@acme.test", "viewer"), e.admin}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var clients []*wsClient
	actual := 1.0
	for _, perUser := range []int{1, 4} {
		for _, b := range users {
			for range perUser - len(clients)/len(users) {
				c := dialWS(t, ctx, srv.URL, b.Token, nil)
				c.subscribe("goals", goalChangedQuery, map[string]any{"s": tr.session})
				clients = append(clients, c)
			}
		}
		waitJoined(t, hub, int64(len(clients)))
		rc.reset()
		actual++
		e.checkIn(e.adminCtx, tr.kr.ID, actual)
		for _, c := range clients {
			waitGoals(t, e, c.next, tr.leaf, tr.mid)
		}
		rc.mu.Lock()
		singles, batches, classes := rc.singles, rc.batches, rc.classes
		rc.mu.Unlock()
		if singles != 0 {
			t.Errorf("%d subscribers: %d tokens checked one by one, want 0", len(clients), singles)
		}
		if len(batches) == 0 || len(classes) != len(batches) {
			t.Fatalf("%d subscribers: %d AuthenticateMany, %d VisibilityClasses, want one each per batch", len(clients), len(batches), len(classes))
		}
		for i := range batches {
			if len(batches[i]) != len(users) || len(classes[i]) != len(users) {
				t.Errorf("%d subscribers of %d users: a batch checked %d tokens and derived %d classes, want %d each",
					len(clients), len(users), len(batches[i]), len(classes[i]), len(users))
			}
		}
	}
}
