package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// routeCalls records, per route ("GET /api/v1/goals/{id}"), the methods of
// upstream.API its handler called: the instrumented backend's OnCall reads
// the route from the request's router context, which the call's context
// carries.
type routeCalls struct {
	mu    sync.Mutex
	calls map[string]map[string]bool
}

func (rc *routeCalls) observe(ctx context.Context, method string) {
	rctx := chi.RouteContext(ctx)
	if rctx == nil || rctx.RoutePattern() == "" {
		return // not a request's call (a webhook delivery, a background task)
	}
	key := rctx.RouteMethod + " " + rctx.RoutePattern()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.calls[key] == nil {
		rc.calls[key] = map[string]bool{}
	}
	rc.calls[key][method] = true
}

// operationMismatches returns, for every route of routes with an Operation,
// why calls do not show its handler calling that method: the route was
// never served, or its handler called other methods only. Routes under
// skipped prefixes are reported apart (unserved), not as mismatches.
func operationMismatches(routes []rest.Route, calls map[string]map[string]bool) (mismatches, unserved []string) {
	for _, r := range routes {
		if r.Operation == "" {
			continue
		}
		key := r.Method + " " + r.Pattern
		got, ok := calls[key]
		switch {
		case !ok:
			unserved = append(unserved, key)
		case !got[r.Operation]:
			names := make([]string, 0, len(got))
			for m := range got {
				names = append(names, m)
			}
			slices.Sort(names)
			mismatches = append(mismatches, fmt.Sprintf("%s: Operation %s, but its handler called %s", key, r.Operation, strings.Join(names, ", ")))
		}
	}
	return mismatches, unserved
}

// TestOperationsMatchHandlers: a route's Operation (which the HTTP client's
// generated method calls it for) is a method its handler really calls.
// Every route with an Operation is called once as the admin with the
// authorization matrix's request (a fresh fixture of items, authz_test.go),
// served over the SQL store behind the instrumented decorator, which
// records per route the methods of upstream.API its handler called; each
// must have called its Operation. A planted mismatch (the Operations of
// two routes swapped) must be found in the same records.
func TestOperationsMatchHandlers(t *testing.T) {
	rc := &routeCalls{calls: map[string]map[string]bool{}}
	counter := instrument.NewCounter()
	counter.OnCall = rc.observe
	e := &authzEnv{env: newEnvWith(t, func(s *sqlstore.Store) upstream.API { return instrument.New(s, counter) })}
	e.member = e.addUser("member")
	e.viewer = e.addUser("viewer")
	for _, rt := range rest.Routes() {
		if rt.Operation == "" {
			continue
		}
		path, body := e.request(rt, e.fixture())
		q := req{method: rt.Method, path: path, body: body}
		if f, ok := body.(formBody); ok {
			q.body, q.raw, q.ctype = nil, &f.body, &f.ctype
		}
		if r := e.do(q); r.status >= 300 && r.status != http.StatusNotModified {
			t.Errorf("%s %s as admin: status %d: %s", rt.Method, path, r.status, r.body)
		}
	}

	rc.mu.Lock()
	defer rc.mu.Unlock()
	routes := rest.Routes()
	mismatches, unserved := operationMismatches(routes, rc.calls)
	for _, m := range mismatches {
		t.Error(m)
	}
	for _, u := range unserved {
		t.Errorf("%s: has an Operation but its handler called nothing upstream", u)
	}
	checked := 0
	for _, r := range routes {
		if r.Operation != "" {
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no route has an Operation")
	}
	t.Logf("%d routes' Operations seen called by their handlers", checked-len(mismatches)-len(unserved))

	// The planted mismatch: two routes' Operations swapped.
	planted := slices.Clone(routes)
	a := slices.IndexFunc(planted, func(r rest.Route) bool { return r.Operation == "GetGoal" })
	b := slices.IndexFunc(planted, func(r rest.Route) bool { return r.Operation == "GetMetric" })
	if a < 0 || b < 0 {
		t.Fatal("no route of GetGoal or GetMetric to plant a mismatch on")
	}
	planted[a].Operation, planted[b].Operation = planted[b].Operation, planted[a].Operation
	if got, _ := operationMismatches(planted, rc.calls); len(got) != len(mismatches)+2 {
		t.Errorf("planted mismatch: found %d mismatches, want %d: %v", len(got), len(mismatches)+2, got)
	}
}
