package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// The OKR core: goals, key results, check-ins, tasks and sessions. Each
// method is one operation of the REST API (docs/gateway.md has the table);
// those the route table maps one to one are generated (api_gen.go), these
// are the rest (upstream/backend/client/gen lists each with why).

var checkInsListing = listing{route: "/api/v2/checkins", reg: upstream.CheckInFields}

const (
	routeGoal    = "/api/v1/goals/{id}"
	routeMetric  = "/api/v1/metrics/{id}"
	routeTask    = "/api/v2/integrations/tasks/{taskId}"
	routeSession = "/api/v1/sessions/{id}"
)

// GoalsGroupedByOwners encodes q as the operation's own query parameters
// (rest.ParseGroupByOwners reads them back).
func (c *Client) GoalsGroupedByOwners(ctx context.Context, q upstream.GroupByOwnersQuery) (upstream.GoalsGroupedBy, error) {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	cmp := func(k string, x *upstream.Comparison) {
		if x != nil {
			v.Set(k, x.Op+strconv.FormatFloat(x.Value, 'g', -1, 64))
		}
	}
	set("filter", q.Deadline)
	set("ids", strings.Join(q.IDs, ","))
	set("ownerIds", strings.Join(q.OwnerIDs, ","))
	set("metricOwnerId", strings.Join(q.MetricOwnerIDs, ","))
	cmp("confidence", q.Confidence)
	cmp("attainment", q.Attainment)
	cmp("metricAttainment", q.MetricAttainment)
	set("metricBefore", q.MetricBefore)
	set("metricAfter", q.MetricAfter)
	if len(q.Sort.Sort) > 0 {
		v.Set("sort", encodeSort(q.Sort.Sort))
	}
	if q.IncludeMetrics {
		v.Set("includeMetrics", "true")
	}
	if q.Skip > 0 {
		v.Set("skip", strconv.Itoa(q.Skip))
	}
	if q.Take > 0 {
		v.Set("take", strconv.Itoa(q.Take))
	}
	const route = "/api/v2/integrations/goals/groupBy/owners"
	var out upstream.GoalsGroupedBy
	_, err := c.do(ctx, call{method: http.MethodGet, route: route, path: route, query: v}, &out)
	return out, err
}

// AddGoalTag: the upstream answers 201 when it added the tag. When the goal
// already carries it, it answers 200 with the tag under Prefer:
// return=representation, which the client sends; an upstream that answers
// 304 without a body regardless costs a read of the tag listing.
func (c *Client) AddGoalTag(ctx context.Context, goalID, title string) (upstream.Tag, bool, error) {
	const route = "/api/v2/integrations/goals/{id}/tags"
	var t upstream.Tag
	a, err := c.do(ctx, represent(call{method: http.MethodPost, route: route, path: fill(route, goalID), body: upstream.TagInput{Title: title}, notModified: true}), &t)
	switch {
	case err != nil:
		return upstream.Tag{}, false, err
	case represented(a):
		return t, false, nil
	case a.status != http.StatusNotModified:
		return t, true, nil
	}
	t, err = c.tagNamed(ctx, title)
	return t, false, err
}

// tagNamed finds the tag whose identity is title's.
func (c *Client) tagNamed(ctx context.Context, title string) (upstream.Tag, error) {
	name := upstream.TagName(title)
	p, err := c.ListTags(ctx, upstream.TagQuery{Name: name, ListQuery: upstream.ListQuery{Limit: upstream.MaxLimit}})
	if err != nil {
		return upstream.Tag{}, err
	}
	for _, t := range p.Items {
		if t.Name == name {
			return upstream.Tag{ID: t.ID, Name: t.Name, Title: t.Title, IsActive: t.IsActive, CreatedBy: t.CreatedBy, DateCreated: t.DateCreated}, nil
		}
	}
	return upstream.Tag{}, upstream.NotFound("tag", name)
}

func (c *Client) GoalsMet(ctx context.Context, sessionID string, tags []string) ([]upstream.Goal, error) {
	const route = "/api/v1/sessions/{id}/stats/goalsMet"
	var v url.Values
	if len(tags) > 0 {
		v = url.Values{"tags": {strings.Join(tags, ",")}}
	}
	var out struct {
		Items []upstream.Goal `json:"items"`
	}
	_, err := c.do(ctx, call{method: http.MethodGet, route: route, path: fill(route, sessionID), query: v}, &out)
	return out.Items, err
}

// ListCheckIns uses the designed listing GET /api/v2/checkins, or one call
// per key result of the filter where the upstream lacks it.
func (c *Client) ListCheckIns(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.CheckIn], error) {
	if !c.opts.Capabilities.CheckIns {
		return c.checkInsPerMetric(ctx, q)
	}
	return list[upstream.CheckIn](ctx, c, checkInsListing, q)
}

// ListCheckInSnapshots uses the designed listing GET
// /api/v2/checkins/snapshots, or where the upstream lacks it lists the
// check-ins and reads each one's snapshot (one call per check-in).
func (c *Client) ListCheckInSnapshots(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.CheckInSnapshot], error) {
	if c.opts.Capabilities.CheckInSnapshots {
		return list[upstream.CheckInSnapshot](ctx, c, listing{route: "/api/v2/checkins/snapshots", reg: upstream.CheckInFields}, q)
	}
	p, err := c.ListCheckIns(ctx, q)
	if err != nil {
		return upstream.Page[upstream.CheckInSnapshot]{}, err
	}
	out := upstream.Page[upstream.CheckInSnapshot]{Items: make([]upstream.CheckInSnapshot, 0, len(p.Items)), TotalCount: p.TotalCount}
	for _, ci := range p.Items {
		c.m.fallbacks.WithLabelValues("ListCheckInSnapshots").Inc()
		m, err := c.GetCheckInSnapshot(ctx, ci.ID)
		if err != nil {
			return upstream.Page[upstream.CheckInSnapshot]{}, err
		}
		out.Items = append(out.Items, upstream.CheckInSnapshot{CheckIn: ci, KeyResult: m})
	}
	return out, nil
}

func (c *Client) ListSessions(ctx context.Context, q upstream.ListQuery, includeDemo bool) (upstream.Page[upstream.Session], error) {
	l := listing{route: "/api/v2/sessions", reg: upstream.SessionFields}
	if includeDemo {
		l.extra = url.Values{"includeDemo": {"true"}}
	}
	return list[upstream.Session](ctx, c, l, q)
}
