package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The rest of the contract: tags, badges, dashboards, KPIs, lists and
// announcements; the operations the route table maps one to one are
// generated (api_gen.go).

const (
	routeBadge     = "/api/v1/badges/{id}"
	routeDashboard = "/api/v1/dashboards/{dashboardId}"
	routeParameter = "/api/v1/dashboards/parameters/{parameterId}"
	routeKPIGroup  = "/api/v1/kpis/groups/{groupId}"
	routeKPI       = "/api/v1/kpis/{kpiId}"
	routeList      = "/api/v1/lists/{id}"
	routeAnnounce  = "/api/v1/announcements/{id}"
)

func (c *Client) ListTags(ctx context.Context, q upstream.TagQuery) (upstream.Page[upstream.TagDetail], error) {
	l := listing{route: "/api/v2/integrations/tags", reg: upstream.TagFields, limit: "take", extra: url.Values{"name": {q.Name}}}
	return list[upstream.TagDetail](ctx, c, l, q.ListQuery)
}

func (c *Client) CreateTags(ctx context.Context, in upstream.TagCreateInput) ([]upstream.Tag, error) {
	p, err := write[upstream.TagsPage[upstream.Tag]](ctx, c, http.MethodPost, "/api/v1/tags", in)
	return p.Tags, err
}

// SetTagsActive: the upstream answers 304 when nothing changed.
func (c *Client) SetTagsActive(ctx context.Context, ids []string, active bool) (int, error) {
	route := "/api/v1/tags/deactivate"
	if active {
		route = "/api/v1/tags/activate"
	}
	var out upstream.ModifiedCount
	a, err := c.do(ctx, call{method: http.MethodPost, route: route, path: route, body: upstream.TagIDsInput{TagIDs: nonNil(ids)}, notModified: true}, &out)
	if err != nil || a.status == http.StatusNotModified {
		return 0, err
	}
	return out.ModifiedCount, nil
}

// AddDashboardTag: the operation answers the tag whether or not the
// dashboard carried it, so whether it was added is read from the
// dashboard's taggings before the write (one more call).
func (c *Client) AddDashboardTag(ctx context.Context, dashboardID, title string) (upstream.Tag, bool, error) {
	var had map[string]bool
	if c.opts.Capabilities.Taggings {
		p, err := c.ListTaggings(ctx, upstream.ListQuery{Filter: query.And(query.Eq("itemId", dashboardID), query.Eq("itemType", upstream.TaggedDashboard)), Limit: upstream.MaxLimit})
		if err != nil {
			return upstream.Tag{}, false, err
		}
		had = map[string]bool{}
		for _, t := range p.Items {
			had[t.TagID] = true
		}
	}
	t, err := write[upstream.Tag](ctx, c, http.MethodPost, "/api/v1/dashboards/{dashboardId}/tags", upstream.TagInput{Title: title}, dashboardID)
	if err != nil {
		return upstream.Tag{}, false, err
	}
	return t, had == nil || !had[t.ID], nil
}

// AddInsightTag: 201 when added, 200 when the insight carried the tag.
func (c *Client) AddInsightTag(ctx context.Context, insightID, title string) (upstream.Tag, bool, error) {
	const route = "/api/v2/integrations/insights/{id}/tags"
	var t upstream.Tag
	a, err := c.do(ctx, call{method: http.MethodPost, route: route, path: fill(route, insightID), body: upstream.TagInput{Title: title}}, &t)
	return t, err == nil && a.status == http.StatusCreated, err
}

func (c *Client) ListTaggings(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Tagging], error) {
	if !c.opts.Capabilities.Taggings {
		return c.taggingsFallback(ctx, q)
	}
	return list[upstream.Tagging](ctx, c, listing{route: "/api/v2/integrations/taggings", reg: upstream.TaggingFields}, q)
}

// UpdateBadge asks for the badge in the answer (Prefer:
// return=representation); an upstream that answers 204 regardless costs a
// read after.
func (c *Client) UpdateBadge(ctx context.Context, id string, in upstream.BadgePatch) (upstream.Badge, error) {
	var b upstream.Badge
	a, err := c.do(ctx, represent(call{method: http.MethodPatch, route: routeBadge, path: fill(routeBadge, id), id: id, body: in}), &b)
	if err != nil || represented(a) {
		return b, err
	}
	return c.GetBadge(ctx, id)
}

func (c *Client) ListAssignedBadges(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.AssignedBadge], error) {
	if !c.opts.Capabilities.BadgeAssignments {
		return c.assignmentsFallback(ctx, q)
	}
	return list[upstream.AssignedBadge](ctx, c, listing{route: "/api/v2/badges/assignments", reg: upstream.AssignedBadgeFields}, q)
}

// DecideBadge: approval answers the assignment (304 when already
// approved); rejection asks for it in the answer (Prefer:
// return=representation), and an upstream that answers 204 regardless
// costs a read of the assignment after.
func (c *Client) DecideBadge(ctx context.Context, assignmentID string, approve bool) (upstream.AssignedBadge, error) {
	const route = "/api/v1/badges/approve/{id}"
	if approve {
		var out upstream.AssignedBadge
		a, err := c.do(ctx, call{method: http.MethodPost, route: route, path: fill(route, assignmentID)}, &out)
		if err == nil && a.status == http.StatusNotModified {
			err = problemError(a.status, a.header, nil)
		}
		return out, err
	}
	var rejected upstream.AssignedBadge
	a, err := c.do(ctx, represent(call{method: http.MethodDelete, route: route, path: fill(route, assignmentID)}), &rejected)
	if err != nil {
		return upstream.AssignedBadge{}, err
	}
	if a.status == http.StatusNotModified {
		return upstream.AssignedBadge{}, problemError(a.status, a.header, nil)
	}
	if represented(a) {
		return rejected, nil
	}
	p, err := c.ListAssignedBadges(ctx, upstream.ListQuery{Filter: query.Eq("id", assignmentID), Limit: 1})
	if err != nil || len(p.Items) == 0 {
		return upstream.AssignedBadge{ID: assignmentID, Status: upstream.BadgeRejected}, nil
	}
	return p.Items[0], nil
}

func (c *Client) DashboardTagUsages(ctx context.Context) ([]upstream.DashboardTagUsage, error) {
	p, err := get[struct {
		Items []upstream.DashboardTagUsage `json:"items"`
	}](ctx, c, "/api/v1/dashboards/tags/usages")
	return p.Items, err
}

// ListDashboardParameters uses the designed filtered listing, or filters
// the documented one (skip and limit only) here.
func (c *Client) ListDashboardParameters(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.DashboardParameter], error) {
	if !c.opts.Capabilities.DashboardParameters {
		return inMemory[upstream.DashboardParameter](ctx, c, "ListDashboardParameters", listing{route: "/api/v1/dashboards/parameters"})(q)
	}
	return list[upstream.DashboardParameter](ctx, c, listing{route: "/api/v2/dashboards/parameters", reg: upstream.DashboardParameterFields}, q)
}

func (c *Client) SetKPIGroupFavorite(ctx context.Context, groupID string, favorite bool) error {
	return c.exec(ctx, putOrDelete(favorite), "/api/v1/kpis/groups/{groupId}/favorite", nil, groupID)
}

func (c *Client) SetKPIInGroup(ctx context.Context, kpiID, groupID string, member bool) error {
	return c.exec(ctx, putOrDelete(member), "/api/v1/kpis/{kpiId}/groups/{groupId}", nil, kpiID, groupID)
}

func putOrDelete(put bool) string {
	if put {
		return http.MethodPut
	}
	return http.MethodDelete
}

func (c *Client) ListTargetTypes(ctx context.Context) ([]string, error) {
	s, err := get[upstream.SupportedTypes](ctx, c, "/api/v1/lists/supported-types")
	return s.SupportedTypes, err
}

// ListAnnouncements uses the designed filtered listing, or filters the
// documented one (skip and limit only) here.
func (c *Client) ListAnnouncements(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Announcement], error) {
	if !c.opts.Capabilities.Announcements {
		return inMemory[upstream.Announcement](ctx, c, "ListAnnouncements", listing{route: "/api/v1/announcements"})(q)
	}
	return list[upstream.Announcement](ctx, c, listing{route: "/api/v2/announcements", reg: upstream.AnnouncementFields}, q)
}

func (c *Client) ReactToAnnouncement(ctx context.Context, id, reactionID string) (upstream.Announcement, error) {
	return write[upstream.Announcement](ctx, c, http.MethodPost, "/api/v1/announcements/{id}/react", upstream.ReactionInput{ReactionID: reactionID}, id)
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
