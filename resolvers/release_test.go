package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"weak"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
)

// levelWatch is the store, with the items of every page of goals and key
// results it returns watched through a weak pointer: before each such
// read it collects garbage and notes how many of the earlier pages are
// still held.
type levelWatch struct {
	upstream.API
	mu    sync.Mutex
	pages []func() bool // whether the page's items are still reachable
	alive []int         // per read: the earlier pages still reachable
}

func (w *levelWatch) before() {
	runtime.GC()
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, p := range w.pages {
		if p() {
			n++
		}
	}
	w.alive = append(w.alive, n)
}

func watch[T any](w *levelWatch, items []T) {
	if len(items) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	wp := weak.Make(&items[0])
	w.pages = append(w.pages, func() bool { return wp.Value() != nil })
}

func (w *levelWatch) ListGoals(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Goal], error) {
	w.before()
	p, err := w.API.ListGoals(ctx, q)
	watch(w, p.Items)
	return p, err
}

func (w *levelWatch) ListMetrics(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Metric], error) {
	w.before()
	p, err := w.API.ListMetrics(ctx, q)
	watch(w, p.Items)
	return p, err
}

// TestFastPathReleasesLevels: the fast path lets go of a level of a
// top-level field's answer once it has written it and loaded the level
// below, and so do the loaders: when the tree's last level loads, the
// goals and key results of the levels above it are garbage but for its
// parents', where gqlgen's execution still holds most of them. The answers
// are the same bytes.
func TestFastPathReleasesLevels(t *testing.T) {
	f := seeded(t, 100, 2)
	sid := biggestSession(t, f)
	run := func(noFast bool) ([]byte, *levelWatch) {
		w := &levelWatch{API: f.store}
		h := graphqlhttp.NewHandler(graphqlhttp.Config{API: w, Auth: f.store, NoFastPath: noFast})
		return serveQuery(t, h, f.token, treeQuery, map[string]any{"id": sid}), w
	}
	fast, fw := run(false)
	slow, sw := run(true)
	if !bytes.Equal(fast, slow) {
		t.Fatalf("the answers differ\nfast path: %.600s\ngqlgen:    %.600s", fast, slow)
	}
	if len(fw.pages) < 5 || len(fw.pages) != len(sw.pages) {
		t.Fatalf("the tree read %d pages of goals and key results on the fast path and %d on gqlgen's; want the same, at least 5", len(fw.pages), len(sw.pages))
	}
	last := func(w *levelWatch) int { return w.alive[len(w.alive)-1] }
	// gqlgen resolves a level's objects concurrently, so which read is
	// its last varies; it holds most of the earlier pages then.
	if f, s := last(fw), last(sw); f > 1 || f >= s {
		t.Errorf("when the last level loads, %d of the %d earlier pages are held on the fast path (want only its parents', 1) and %d on gqlgen's: %v",
			f, len(fw.pages)-1, s, fw.alive)
	}
}

// serveQuery answers a GraphQL request with h, as the holder of token, and
// returns the body; it fails on anything but a 200 without errors.
func serveQuery(tb testing.TB, h http.Handler, token, q string, vars map[string]any) []byte {
	tb.Helper()
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	req := httptest.NewRequestWithContext(tb.Context(), http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"errors"`)) {
		tb.Fatalf("HTTP %d: %.500s", rec.Code, rec.Body.String())
	}
	return rec.Body.Bytes()
}
