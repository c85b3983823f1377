package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// Fallbacks of the edges whose designed listing the upstream lacks
// (Tag.goals, Tag.dashboards, Badge.holders): the items are rebuilt from
// documented operations, then the query applies here (pageOf).

// taggingsFallback rebuilds the taggings of the tags named by the filter's
// tagId: per tag, the dashboards carrying it (GET /api/v1/dashboards/tag/{tag},
// one call per tag); and the goals carrying them, read from the goal
// listing's embedded tags (every goal, in pages of upstream.MaxLimit).
// Insight taggings have no documented listing and are left out.
func (c *Client) taggingsFallback(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Tagging], error) {
	tagIDs, err := filterValues(q.Filter, "tagId")
	if err != nil {
		return upstream.Page[upstream.Tagging]{}, err
	}
	if len(tagIDs) > MaxFallbackCalls {
		return upstream.Page[upstream.Tagging]{}, upstream.Errorf(upstream.CodeLimitExceeded, "ListTaggings: %d tags exceed the %d per-parent calls of the fallback", len(tagIDs), MaxFallbackCalls)
	}
	want := map[string]bool{}
	for _, id := range tagIDs {
		want[id] = true
	}
	var ts []upstream.Tagging
	for _, id := range tagIDs {
		c.m.fallbacks.WithLabelValues("ListTaggings").Inc()
		ds, err := c.DashboardsByTag(ctx, id)
		if err != nil && upstream.ErrorCode(err) != upstream.CodeNotFound {
			return upstream.Page[upstream.Tagging]{}, err
		}
		for _, d := range ds {
			ts = append(ts, upstream.Tagging{ID: id + ":" + d.ID, TagID: id, ItemID: d.ID, ItemType: upstream.TaggedDashboard})
		}
	}
	for skip := 0; ; {
		c.m.fallbacks.WithLabelValues("ListTaggings").Inc()
		p, err := c.ListGoals(ctx, upstream.ListQuery{Skip: skip, Limit: upstream.MaxLimit})
		if err != nil {
			return upstream.Page[upstream.Tagging]{}, err
		}
		for _, g := range p.Items {
			for _, t := range g.Tags {
				if want[t.ID] {
					ts = append(ts, upstream.Tagging{ID: t.ID + ":" + g.ID, TagID: t.ID, ItemID: g.ID, ItemType: upstream.TaggedGoal})
				}
			}
		}
		skip += len(p.Items)
		if len(p.Items) == 0 || skip >= p.TotalCount || skip >= MaxFallbackCalls*upstream.MaxLimit {
			break
		}
	}
	return pageOfValues(ctx, ts, q, "ListTaggings")
}

// assignmentsFallback rebuilds the badge assignments of the badges named by
// the filter's badgeId: the approved holders of each
// (GET /api/v1/badges/assign/{id}, one call per badge) as one assignment per
// badge, whose id is "<badgeId>:approved" (not the upstream's assignment
// ids), and the pending ones from the approval list (every page).
func (c *Client) assignmentsFallback(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.AssignedBadge], error) {
	badgeIDs, err := filterValues(q.Filter, "badgeId")
	if err != nil {
		return upstream.Page[upstream.AssignedBadge]{}, err
	}
	if len(badgeIDs) > MaxFallbackCalls {
		return upstream.Page[upstream.AssignedBadge]{}, upstream.Errorf(upstream.CodeLimitExceeded, "ListAssignedBadges: %d badges exceed the %d per-parent calls of the fallback", len(badgeIDs), MaxFallbackCalls)
	}
	var as []upstream.AssignedBadge
	for _, id := range badgeIDs {
		c.m.fallbacks.WithLabelValues("ListAssignedBadges").Inc()
		h, err := c.BadgeAssignees(ctx, id)
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			continue
		}
		if err != nil {
			return upstream.Page[upstream.AssignedBadge]{}, err
		}
		a := upstream.AssignedBadge{ID: id + ":approved", BadgeID: id, Status: upstream.BadgeApproved, AssigneeIDs: []string{}}
		for _, u := range h.Users {
			a.AssigneeIDs = append(a.AssigneeIDs, u.ID)
		}
		for _, t := range h.Teams {
			a.AssigneeIDs = append(a.AssigneeIDs, t.ID)
		}
		if len(a.AssigneeIDs) > 0 {
			as = append(as, a)
		}
	}
	pending, err := inMemory[upstream.AssignedBadge](ctx, c, "ListAssignedBadges", listing{route: "/api/v1/badges/approve"})(upstream.ListQuery{Limit: upstream.MaxLimit})
	if err != nil {
		return upstream.Page[upstream.AssignedBadge]{}, err
	}
	as = append(as, pending.Items...)
	return pageOfValues(ctx, as, q, "ListAssignedBadges")
}

// pageOfValues is pageOf for items already decoded.
func pageOfValues[T any](ctx context.Context, items []T, q upstream.ListQuery, op string) (upstream.Page[T], error) {
	raws := make([]json.RawMessage, len(items))
	for i := range items {
		b, err := json.Marshal(items[i])
		if err != nil {
			return upstream.Page[T]{}, fmt.Errorf("client: %s: %w", op, err)
		}
		raws[i] = b
	}
	return pageOf[T](ctx, raws, q, op)
}
