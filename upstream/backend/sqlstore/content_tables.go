package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// dashboardDoc is a dashboard as stored: the resource plus who created it
// (its owner for access decisions) and the ids of the parameters it uses
// (embedded as full parameters on read).
type dashboardDoc struct {
	upstream.Dashboard
	CreatedByID  string   `json:"createdById"`
	ParameterIDs []string `json:"parameterIds"`
}

// The tables of the rest of the contract (migration 00003).
var (
	dashboards = table[dashboardDoc]{name: "dashboards", kind: "dashboard", reg: upstream.DashboardFields,
		cols: []string{"created_by", "is_report"},
		keys: func(d *dashboardDoc) []any { return []any{d.CreatedByID, d.IsReport} },
		id:   func(d *dashboardDoc) string { return d.ID }}
	dashboardParams = table[upstream.DashboardParameter]{name: "dashboard_parameters", kind: "dashboard parameter", reg: upstream.DashboardParameterFields,
		cols: []string{"key"},
		keys: func(p *upstream.DashboardParameter) []any { return []any{p.Key} },
		id:   func(p *upstream.DashboardParameter) string { return p.ID }}
	badges = table[upstream.Badge]{name: "badges", kind: "badge", reg: upstream.BadgeFields,
		keys: func(*upstream.Badge) []any { return nil },
		id:   func(b *upstream.Badge) string { return b.ID }}
	badgeAssignments = table[upstream.AssignedBadge]{name: "badge_assignments", kind: "badge assignment", reg: upstream.AssignedBadgeFields,
		cols: []string{"badge_id", "status"},
		keys: func(a *upstream.AssignedBadge) []any { return []any{a.BadgeID, a.Status} },
		id:   func(a *upstream.AssignedBadge) string { return a.ID }}
	kpiGroups = table[upstream.KPIGroup]{name: "kpi_groups", kind: "KPI group", reg: upstream.KPIGroupFields,
		keys: func(*upstream.KPIGroup) []any { return nil },
		id:   func(g *upstream.KPIGroup) string { return g.ID }}
	kpis = table[upstream.KPI]{name: "kpis", kind: "KPI", reg: upstream.KPIFields,
		keys: func(*upstream.KPI) []any { return nil },
		id:   func(k *upstream.KPI) string { return k.ID }}
	lists = table[upstream.List]{name: "lists", kind: "list", reg: upstream.ListFields,
		keys: func(*upstream.List) []any { return nil },
		id:   func(l *upstream.List) string { return l.ID }}
	announcements = table[upstream.Announcement]{name: "announcements", kind: "announcement", reg: upstream.AnnouncementFields,
		keys: func(*upstream.Announcement) []any { return nil },
		id:   func(a *upstream.Announcement) string { return a.ID }}
	// taggings is the item_tags join seen as a read-only document table.
	taggings = table[upstream.Tagging]{name: `(SELECT tag_id || ':' || item_id AS id, account_id, tag_id, item_id, item_type, added,
		json_object('id', tag_id || ':' || item_id, 'tagId', tag_id, 'itemId', item_id, 'itemType', item_type, 'added', added) AS doc
		FROM item_tags) AS taggings`, kind: "tagging", reg: upstream.TaggingFields}
)

// everything is a page size that takes all matches, for listings that are
// filtered further in memory before paging.
const everything = 1 << 30

// pageInMemory filters (lq.Filter), orders (lq.Sort, else less) and pages
// items in memory, for listings whose figures are computed on read.
func pageInMemory[T any](ctx context.Context, items []T, lq upstream.ListQuery, less func(a, b T) bool) ([]T, int, error) {
	type row struct {
		v T
		m map[string]any
	}
	rows := make([]row, 0, len(items))
	for _, it := range items {
		raw, err := json.Marshal(it)
		if err != nil {
			return nil, 0, fmt.Errorf("sqlstore: encode: %w", err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, 0, fmt.Errorf("sqlstore: decode: %w", err)
		}
		if ok, err := lq.Filter.MatchContext(ctx, m); err != nil {
			return nil, 0, fmt.Errorf("sqlstore: filter: %w", err)
		} else if !ok {
			continue
		}
		rows = append(rows, row{it, m})
	}
	if len(lq.Sort) > 0 || less == nil {
		by := query.Less(lq.Sort)
		slices.SortStableFunc(rows, func(a, b row) int { return cmpOf(by(a.m, b.m), by(b.m, a.m)) })
	} else {
		slices.SortStableFunc(rows, func(a, b row) int { return cmpOf(less(a.v, b.v), less(b.v, a.v)) })
	}
	total := len(rows)
	out := []T{}
	for i := lq.Skip; i < total && len(out) < lq.PageLimit(); i++ {
		out = append(out, rows[i].v)
	}
	return out, total, nil
}

func cmpOf(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// checkText validates a required (or optional) text field's length and,
// when required, that it is not blank. It returns the trimmed value.
func checkText(field, v string, required bool, max int) (string, error) {
	v = strings.TrimSpace(v)
	if required && v == "" {
		return "", upstream.Invalid(field, "must not be empty")
	}
	if len(v) > max {
		return "", upstream.Invalid(field, "must be at most %d characters", max)
	}
	return v, nil
}

// checkIDs validates that every element of ids is an id; it returns them
// deduplicated, never nil.
func checkIDs(field string, ids []string) ([]string, error) {
	for i, id := range ids {
		if !upstream.ValidID(id) {
			return nil, upstream.Invalid(fmt.Sprintf("%s[%d]", field, i), "%q is not an id (24 lowercase hexadecimal characters)", id)
		}
	}
	return nonNil(dedupe(ids)), nil
}

// userExists reports whether id names a user of account.
func userExists(ctx context.Context, q querier, account, id string) (bool, error) {
	if !upstream.ValidID(id) {
		return false, nil
	}
	_, err := users.get(ctx, q, account, id)
	if upstream.ErrorCode(err) == upstream.CodeNotFound {
		return false, nil
	}
	return err == nil, err
}

// forbidden reports whether err is an authorization refusal (the item is
// then left out of listings rather than failing them).
func forbidden(err error) bool { return upstream.ErrorCode(err) == upstream.CodeForbidden }
