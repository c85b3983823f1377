package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// ListTags lists the account's tags whose name contains q.Name, with their
// usage counts. The counts and the last use are computed from item_tags, so
// filter, sort and paging apply in memory over the name matches (an
// account's tags are few). The default order is by last use, most recent
// first; a tag never used counts as used when it was created.
func (s *Store) ListTags(ctx context.Context, tq upstream.TagQuery) (upstream.Page[upstream.TagDetail], error) {
	q, c, err := s.readAs(ctx, upstream.TagsRead)
	if err != nil {
		return upstream.Page[upstream.TagDetail]{}, err
	}
	rows, err := q.QueryContext(ctx, `SELECT t.doc,
		(SELECT count(*) FROM item_tags it WHERE it.account_id = t.account_id AND it.tag_id = t.id AND it.item_type = 'dashboard'),
		(SELECT count(*) FROM item_tags it WHERE it.account_id = t.account_id AND it.tag_id = t.id AND it.item_type = 'goal'),
		(SELECT count(*) FROM item_tags it WHERE it.account_id = t.account_id AND it.tag_id = t.id),
		COALESCE((SELECT max(it.added) FROM item_tags it WHERE it.account_id = t.account_id AND it.tag_id = t.id), '')
		FROM tags t WHERE t.account_id = ? AND instr(t.name, ?) > 0`, c.AccountID, upstream.TagName(tq.Name))
	if err != nil {
		return upstream.Page[upstream.TagDetail]{}, fmt.Errorf("sqlstore: list tags: %w", err)
	}
	defer rows.Close()
	var all []upstream.TagDetail
	for rows.Next() {
		var raw []byte
		var d upstream.TagDetail
		if err := rows.Scan(&raw, &d.DashboardsTaggedCount, &d.GoalsTaggedCount, &d.ItemsTaggedCount, &d.LastUsed); err != nil {
			return upstream.Page[upstream.TagDetail]{}, fmt.Errorf("sqlstore: list tags: %w", err)
		}
		var t upstream.Tag
		if err := json.Unmarshal(raw, &t); err != nil {
			return upstream.Page[upstream.TagDetail]{}, fmt.Errorf("sqlstore: decode tag: %w", err)
		}
		d.ID, d.Name, d.Title, d.IsActive, d.CreatedBy, d.DateCreated = t.ID, t.Name, t.Title, t.IsActive, t.CreatedBy, t.DateCreated
		if d.LastUsed == "" {
			d.LastUsed = t.DateCreated
		}
		all = append(all, d)
	}
	if err := rows.Err(); err != nil {
		return upstream.Page[upstream.TagDetail]{}, fmt.Errorf("sqlstore: list tags: %w", err)
	}
	items, total, err := pageInMemory(ctx, all, tq.ListQuery, func(a, b upstream.TagDetail) bool {
		if a.LastUsed != b.LastUsed {
			return a.LastUsed > b.LastUsed
		}
		return a.ID < b.ID
	})
	if err != nil {
		return upstream.Page[upstream.TagDetail]{}, err
	}
	return upstream.Page[upstream.TagDetail]{Items: items, TotalCount: total}, nil
}

// CreateTags creates tags by title; a title naming an existing tag returns
// that tag. All or nothing.
func (s *Store) CreateTags(ctx context.Context, in upstream.TagCreateInput) ([]upstream.Tag, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	var titles []string
	if in.Title != "" {
		titles = append(titles, in.Title)
	}
	titles = append(titles, in.Titles...)
	if len(titles) == 0 {
		return nil, upstream.Invalid("title", "is required (or titles, a non-empty array)")
	}
	if len(titles) > 100 {
		return nil, upstream.Invalid("titles", "at most 100 tags at once")
	}
	for i, t := range in.Titles {
		if upstream.TagName(t) == "" {
			return nil, upstream.Invalid(fmt.Sprintf("titles[%d]", i), "must not be empty")
		}
	}
	out := []upstream.Tag{}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.TagsManage, nil); err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, title := range titles {
			t, err := s.tagByName(ctx, q, c, title)
			if err != nil {
				return err
			}
			if !seen[t.ID] {
				seen[t.ID] = true
				out = append(out, t)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetTagsActive activates or deactivates tags by id and returns how many
// changed. An id that names no tag of the account is a 400 and nothing is
// written.
func (s *Store) SetTagsActive(ctx context.Context, ids []string, active bool) (int, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, upstream.Invalid("tagIds", "must name at least one tag")
	}
	if len(ids) > upstream.MaxLimit {
		return 0, upstream.Invalid("tagIds", "at most %d tags at once", upstream.MaxLimit)
	}
	if ids, err = checkIDs("tagIds", ids); err != nil {
		return 0, err
	}
	n := 0
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.TagsManage, nil); err != nil {
			return err
		}
		rows, err := q.QueryContext(ctx, "SELECT doc FROM tags WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))", c.AccountID, idsParam(ids))
		if err != nil {
			return fmt.Errorf("sqlstore: load tags: %w", err)
		}
		found, err := scanDocs[upstream.Tag](rows)
		if err != nil {
			return fmt.Errorf("sqlstore: load tags: %w", err)
		}
		byID := map[string]upstream.Tag{}
		for _, t := range found {
			byID[t.ID] = t
		}
		for i, id := range ids {
			if _, ok := byID[id]; !ok {
				return upstream.Invalid(fmt.Sprintf("tagIds[%d]", i), "no tag %q", id)
			}
		}
		for _, id := range ids {
			t := byID[id]
			if t.IsActive == active {
				continue
			}
			t.IsActive = active
			doc, _ := json.Marshal(t)
			if _, err := q.ExecContext(ctx, "UPDATE tags SET doc = ? WHERE id = ? AND account_id = ?", string(doc), t.ID, c.AccountID); err != nil {
				return fmt.Errorf("sqlstore: update tag: %w", err)
			}
			n++
		}
		return nil
	})
	return n, err
}

// AddDashboardTag tags a dashboard the caller may edit.
func (s *Store) AddDashboardTag(ctx context.Context, dashboardID, title string) (upstream.Tag, bool, error) {
	return s.addTag(ctx, dashboardID, upstream.TaggedDashboard, title, func(q querier, c upstream.Caller) error {
		d, err := dashboards.get(ctx, q, c.AccountID, dashboardID)
		if err != nil {
			return err
		}
		return s.authorize(ctx, q, c, upstream.DashboardsEdit, dashboardItem(d))
	})
}

// AddInsightTag tags an insight. An insight exists while some dashboard of
// the account places it (insights[].insightId); the caller must be allowed
// to edit that dashboard.
func (s *Store) AddInsightTag(ctx context.Context, insightID, title string) (upstream.Tag, bool, error) {
	return s.addTag(ctx, insightID, upstream.TaggedInsight, title, func(q querier, c upstream.Caller) error {
		ds, err := s.dashboardsWithInsight(ctx, q, c.AccountID, insightID)
		if err != nil {
			return err
		}
		if len(ds) == 0 {
			return upstream.NotFound("insight", insightID)
		}
		return s.authorize(ctx, q, c, upstream.DashboardsEdit, dashboardItem(ds[0]))
	})
}

// ListTaggings lists tag assignments; GraphQL edges batch on it.
func (s *Store) ListTaggings(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Tagging], error) {
	return listPage(ctx, s, listing[upstream.Tagging]{action: upstream.TagsRead, table: taggings}, lq)
}

// tagByRef finds a tag by id, name or title; ok is false when none matches.
func tagByRef(ctx context.Context, q querier, account, ref string) (upstream.Tag, bool, error) {
	var raw []byte
	err := q.QueryRowContext(ctx, "SELECT doc FROM tags WHERE account_id = ? AND (id = ? OR name = ?)", account, strings.TrimSpace(ref), upstream.TagName(ref)).Scan(&raw)
	if isNoRows(err) {
		return upstream.Tag{}, false, nil
	}
	if err != nil {
		return upstream.Tag{}, false, fmt.Errorf("sqlstore: find tag: %w", err)
	}
	var t upstream.Tag
	if err := json.Unmarshal(raw, &t); err != nil {
		return upstream.Tag{}, false, fmt.Errorf("sqlstore: decode tag: %w", err)
	}
	return t, true, nil
}
