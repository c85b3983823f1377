package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Capabilities says which designed operations of the gateway
// (upstream/transport/rest/gateway.go) the upstream serves. Without one, the client
// falls back to documented operations: per-parent calls, bounded by
// MaxFallbackCalls and counted in okrgate_upstream_fallback_calls_total
// (docs/gateway.md lists them).
type Capabilities struct {
	Whoami              bool // GET /api/v2/users/me
	CheckIns            bool // GET /api/v2/checkins
	CheckInSnapshots    bool // GET /api/v2/checkins/snapshots
	Taggings            bool // GET /api/v2/integrations/taggings
	BadgeAssignments    bool // GET /api/v2/badges/assignments
	DashboardParameters bool // GET /api/v2/dashboards/parameters
	Announcements       bool // GET /api/v2/announcements
	Permissions         bool // GET /api/v2/permissions
	// Events: the event feed, GET /api/v2/events, which a gateway
	// follows to serve subscriptions (events.go); without it, none.
	Events bool
	// Include: the goal, key result and task listings take include (the
	// caller's projection passed through; without it, the upstream computes
	// every enrichment of the default shape).
	Include bool
}

// AllCapabilities is an upstream serving every designed operation (okrgate).
func AllCapabilities() *Capabilities {
	return &Capabilities{true, true, true, true, true, true, true, true, true, true}
}

// Discover reads the upstream's OpenAPI document and sets the client's
// Capabilities from the paths it documents. An upstream that serves no
// document is taken to serve the documented operations only. Call it
// before the client serves requests.
func (c *Client) Discover(ctx context.Context) (*Capabilities, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+openAPIPath, nil)
	if err != nil {
		return nil, fmt.Errorf("client: discover: %w", err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, unavailable("GET "+openAPIPath, err)
	}
	defer resp.Body.Close()
	caps := &Capabilities{}
	if resp.StatusCode == http.StatusOK {
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		if err != nil {
			return nil, unavailable("GET "+openAPIPath, err)
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("client: discover: the upstream's OpenAPI document: %w", err)
		}
		has := func(path string) bool { _, ok := doc.Paths[path]["get"]; return ok }
		takes := func(path, param string) bool {
			var op struct {
				Parameters []struct{ Name, In string } `json:"parameters"`
			}
			if json.Unmarshal(doc.Paths[path]["get"], &op) != nil {
				return false
			}
			for _, p := range op.Parameters {
				if p.Name == param && p.In == "query" {
					return true
				}
			}
			return false
		}
		*caps = Capabilities{
			Whoami:              has("/api/v2/users/me"),
			CheckIns:            has("/api/v2/checkins"),
			CheckInSnapshots:    has("/api/v2/checkins/snapshots"),
			Taggings:            has("/api/v2/integrations/taggings"),
			BadgeAssignments:    has("/api/v2/badges/assignments"),
			DashboardParameters: has("/api/v2/dashboards/parameters"),
			Announcements:       has("/api/v2/announcements"),
			Permissions:         has("/api/v2/permissions"),
			Events:              has("/api/v2/events"),
			Include: takes("/api/v2/integrations/goals", "include") && takes("/api/v2/metrics", "include") &&
				takes("/api/v2/integrations/tasks", "include"),
		}
	} else if resp.StatusCode >= 500 {
		return nil, upstream.Errorf(upstream.CodeUnavailable, "GET %s: the upstream answered %d", openAPIPath, resp.StatusCode)
	}
	c.opts.Capabilities = caps
	return caps, nil
}

// authenticateFallback resolves a token without GET /api/v2/users/me: the
// caller's own token listing names its user, whose record names the account
// and roles. Two calls, cached like the designed one.
func (c *Client) authenticateFallback(ctx context.Context, token string) (upstream.Caller, error) {
	var ts struct {
		Items []upstream.Token `json:"items"`
	}
	if _, err := c.do(ctx, call{method: http.MethodGet, route: "/api/v2/users/me/tokens", path: "/api/v2/users/me/tokens", token: token}, &ts); err != nil {
		return upstream.Caller{}, err
	}
	c.m.fallbacks.WithLabelValues("Authenticate").Inc()
	if len(ts.Items) == 0 {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "the upstream names no user for the token")
	}
	var u upstream.User
	route := "/api/v2/users/{id}"
	if _, err := c.do(ctx, call{method: http.MethodGet, route: route, path: fill(route, ts.Items[0].UserID), token: token}, &u); err != nil {
		return upstream.Caller{}, err
	}
	return upstream.Caller{AccountID: u.AccountID, UserID: u.ID, Roles: roleNames(u), Token: token}, nil
}

// inMemory answers q from every item of a documented listing that takes no
// filter or sort: all its pages (at most MaxFallbackCalls), filtered,
// sorted and paged here with the filter language's own matcher.
func inMemory[T any](ctx context.Context, c *Client, op string, l listing) func(upstream.ListQuery) (upstream.Page[T], error) {
	return func(q upstream.ListQuery) (upstream.Page[T], error) {
		var all []json.RawMessage
		for page := 0; ; page++ {
			if page >= MaxFallbackCalls {
				return upstream.Page[T]{}, upstream.Errorf(upstream.CodeLimitExceeded, "%s: more than %d pages to filter without the designed listing", op, MaxFallbackCalls)
			}
			c.m.fallbacks.WithLabelValues(op).Inc()
			raws, total, err := c.listRaw(ctx, l, upstream.ListQuery{Skip: len(all), Limit: upstream.MaxLimit})
			if err != nil {
				return upstream.Page[T]{}, err
			}
			all = append(all, raws...)
			if len(raws) == 0 || len(all) >= total {
				break
			}
		}
		return pageOf[T](ctx, all, q, op)
	}
}

// pageOf filters, sorts and pages raw items as the store would answer q.
func pageOf[T any](ctx context.Context, raws []json.RawMessage, q upstream.ListQuery, op string) (upstream.Page[T], error) {
	type doc struct {
		raw json.RawMessage
		m   map[string]any
	}
	var docs []doc
	for _, r := range raws {
		var m map[string]any
		if err := json.Unmarshal(r, &m); err != nil {
			return upstream.Page[T]{}, upstream.Errorf(upstream.CodeUnavailable, "%s: the upstream answered an unreadable item: %v", op, err)
		}
		ok, err := q.Filter.MatchContext(ctx, m)
		if err != nil {
			return upstream.Page[T]{}, fmt.Errorf("client: %s: %w", op, err)
		}
		if ok {
			docs = append(docs, doc{r, m})
		}
	}
	less := query.Less(q.Sort)
	sort.SliceStable(docs, func(i, j int) bool { return less(docs[i].m, docs[j].m) })
	total := len(docs)
	docs = docs[min(q.Skip, len(docs)):]
	docs = docs[:min(len(docs), q.PageLimit())]
	out := upstream.Page[T]{Items: make([]T, len(docs)), TotalCount: total}
	for i, d := range docs {
		if err := json.Unmarshal(d.raw, &out.Items[i]); err != nil {
			return upstream.Page[T]{}, upstream.Errorf(upstream.CodeUnavailable, "%s: the upstream answered an unreadable item: %v", op, err)
		}
	}
	return out, nil
}

// checkInsPerMetric lists check-ins without GET /api/v2/checkins: one call
// per key result named by the filter's metricId (a value or an $in list) to
// the documented per-key-result listing, then q applied here.
func (c *Client) checkInsPerMetric(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.CheckIn], error) {
	ids, err := filterValues(q.Filter, "metricId")
	if err != nil {
		return upstream.Page[upstream.CheckIn]{}, err
	}
	if len(ids) > MaxFallbackCalls {
		return upstream.Page[upstream.CheckIn]{}, upstream.Errorf(upstream.CodeLimitExceeded, "ListCheckIns: %d key results exceed the %d per-parent calls of the fallback", len(ids), MaxFallbackCalls)
	}
	var all []json.RawMessage
	for _, id := range ids {
		route := "/api/v1/metrics/{id}/checkins"
		for skip := 0; ; {
			c.m.fallbacks.WithLabelValues("ListCheckIns").Inc()
			var p rawPage
			_, err := c.do(ctx, call{method: http.MethodGet, route: route, path: fill(route, id),
				query: listing{}.values(upstream.ListQuery{Skip: skip, Limit: upstream.MaxLimit})}, &p)
			if upstream.ErrorCode(err) == upstream.CodeNotFound {
				break // a key result the caller cannot see has no check-ins for them
			}
			if err != nil {
				return upstream.Page[upstream.CheckIn]{}, err
			}
			all = append(all, p.items()...)
			skip += len(p.items())
			if len(p.items()) == 0 || skip >= p.TotalCount {
				break
			}
		}
	}
	return pageOf[upstream.CheckIn](ctx, all, q, "ListCheckIns")
}

// filterValues returns the values a filter requires of field: its equality
// or $in list at the top level (alone or in a conjunction). Without one the
// per-parent fallback cannot know its parents.
func filterValues(e *query.Expr, field string) ([]string, error) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(e.String()), &doc); err != nil {
		return nil, fmt.Errorf("client: filter %s: %w", e, err)
	}
	var ids []string
	switch v := doc[field].(type) {
	case string:
		ids = []string{v}
	case map[string]any:
		in, _ := v["$in"].([]any)
		for _, x := range in {
			if s, ok := x.(string); ok {
				ids = append(ids, s)
			}
		}
	}
	if len(ids) == 0 {
		return nil, upstream.Errorf(upstream.CodeInvalidFilter, "this upstream lists these items per parent only: filter on %s with a value or $in", field)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// roleNames are the names of u's roles, as a Caller holds them.
func roleNames(u upstream.User) []string {
	out := make([]string, 0, len(u.Roles))
	for _, r := range u.Roles {
		out = append(out, r.Name)
	}
	return out
}

// permissionsPerID answers a grant listing filtered by id $in without the
// designed listing: one GetPermission per id (at most MaxFallbackCalls),
// skipping ids the caller cannot see.
func (c *Client) permissionsPerID(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Permission], error) {
	ids, err := filterValues(q.Filter, "id")
	if err != nil {
		return upstream.Page[upstream.Permission]{}, err
	}
	if len(ids) > MaxFallbackCalls {
		return upstream.Page[upstream.Permission]{}, upstream.Errorf(upstream.CodeLimitExceeded, "ListPermissions: %d ids exceed the %d per-item calls of the fallback", len(ids), MaxFallbackCalls)
	}
	var all []json.RawMessage
	for _, id := range ids {
		c.m.fallbacks.WithLabelValues("ListPermissions").Inc()
		var raw json.RawMessage
		route := "/api/v1/permissions/{id}"
		_, err := c.do(ctx, call{method: http.MethodGet, route: route, path: fill(route, id)}, &raw)
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			continue
		}
		if err != nil {
			return upstream.Page[upstream.Permission]{}, err
		}
		all = append(all, raw)
	}
	return pageOf[upstream.Permission](ctx, all, q, "ListPermissions")
}
