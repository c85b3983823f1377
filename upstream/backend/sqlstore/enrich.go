package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Read-time joins. Owners, tags and embedded collections are not stored in a
// document; they are loaded for a whole page at once (one query per kind of
// related item, never one per item), so a rename shows everywhere at once.

// assignees loads the users and teams with the given ids, keyed by id.
func (s *Store) assignees(ctx context.Context, q querier, account string, ids []string) (map[string]upstream.Assignee, error) {
	out := make(map[string]upstream.Assignee, len(ids))
	ids = dedupe(ids)
	known := batchDocsOf(q) // a Bulk batch's (bulk.go)
	if known != nil {
		ids = slices.DeleteFunc(ids, func(id string) bool {
			a, ok := known.assignees[id]
			if ok {
				out[id] = a
			}
			return ok
		})
	}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT 'user', doc FROM users WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))
		UNION ALL SELECT 'team', doc FROM teams WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))`,
		account, idsParam(ids), account, idsParam(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load owners: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var raw []byte
		if err := rows.Scan(&kind, &raw); err != nil {
			return nil, fmt.Errorf("sqlstore: load owners: %w", err)
		}
		a, err := decodeAssignee(kind, raw)
		if err != nil {
			return nil, err
		}
		out[a.ID] = a
		if known != nil {
			known.assignees[a.ID] = a
		}
	}
	return out, rows.Err()
}

// ownersOf fills Assignee and Assignees from the owner ids.
func ownersOf(owners map[string]upstream.Assignee, ownerID string, ownerIDs []string) (*upstream.Assignee, []upstream.Assignee) {
	list := make([]upstream.Assignee, 0, len(ownerIDs))
	for _, id := range ownerIDs {
		if a, ok := owners[id]; ok {
			list = append(list, a)
		}
	}
	if a, ok := owners[ownerID]; ok {
		return &a, list
	}
	return nil, list
}

// itemTags loads the tags of items, keyed by item id, in the order added.
func (s *Store) itemTags(ctx context.Context, q querier, account string, itemIDs []string) (map[string][]upstream.Tag, error) {
	out := map[string][]upstream.Tag{}
	if len(itemIDs) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT it.item_id, t.doc FROM item_tags it JOIN tags t ON t.id = it.tag_id AND t.account_id = it.account_id
		WHERE it.account_id = ? AND it.item_id IN (SELECT value FROM json_each(?)) ORDER BY it.added, t.name`,
		account, idsParam(itemIDs))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load tags: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var item string
		var raw []byte
		if err := rows.Scan(&item, &raw); err != nil {
			return nil, fmt.Errorf("sqlstore: load tags: %w", err)
		}
		var t upstream.Tag
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("sqlstore: decode tag: %w", err)
		}
		out[item] = append(out[item], t)
	}
	return out, rows.Err()
}

// explicit reports whether a projection names field (nil means the default
// shape, which leaves embedded collections out).
func explicit(p query.Projection, field string) bool {
	if p == nil {
		return false
	}
	_, ok := p[field]
	return ok
}

// wantsOwners reports whether a projection shows an item's owners as
// resolved users and teams (assignee, assignees), which cost a join.
func wantsOwners(p query.Projection) bool { return p.Has("assignee") || p.Has("assignees") }

// enrichGoals adds owners and tags to goals, and their key results and tasks
// when fields names them (or withMetrics, for key results). What fields does
// not show is not loaded: owners without assignee/assignees, tags without
// tags (upstream.ListQuery.Fields); those fields keep what the stored
// document holds, which is nothing.
func (s *Store) enrichGoals(ctx context.Context, q querier, account string, gs []upstream.Goal, fields query.Projection, withMetrics bool) error {
	if len(gs) == 0 {
		return nil
	}
	ids := make([]string, len(gs))
	for i, g := range gs {
		ids[i] = g.ID
	}
	var as map[string]upstream.Assignee
	if wantsOwners(fields) {
		var owners []string
		for _, g := range gs {
			owners = append(owners, g.OwnerIDs...)
		}
		var err error
		if as, err = s.assignees(ctx, q, account, owners); err != nil {
			return err
		}
	}
	var tags map[string][]upstream.Tag
	if fields.Has("tags") {
		var err error
		if tags, err = s.itemTags(ctx, q, account, ids); err != nil {
			return err
		}
	}
	var byGoal map[string][]upstream.Metric
	if withMetrics || explicit(fields, "metrics") {
		ms, err := metrics.in(ctx, q, account, "goal_id", ids)
		if err != nil {
			return err
		}
		if err := s.enrichMetrics(ctx, q, account, ms, fields["metrics"]); err != nil {
			return err
		}
		byGoal = make(map[string][]upstream.Metric)
		for _, m := range ms {
			byGoal[m.GoalID] = append(byGoal[m.GoalID], m)
		}
	}
	var tasksByGoal map[string][]upstream.Task
	if explicit(fields, "tasks") {
		ts, err := tasks.in(ctx, q, account, "parent_id", ids)
		if err != nil {
			return err
		}
		if err := s.enrichTasks(ctx, q, account, ts, fields["tasks"]); err != nil {
			return err
		}
		tasksByGoal = make(map[string][]upstream.Task)
		for _, t := range ts {
			tasksByGoal[t.ParentID] = append(tasksByGoal[t.ParentID], t)
		}
	}
	for i := range gs {
		g := &gs[i]
		if as != nil {
			g.Assignee, g.Assignees = ownersOf(as, g.OwnerID, g.OwnerIDs)
		}
		if tags != nil {
			g.Tags = tags[g.ID]
			if g.Tags == nil {
				g.Tags = []upstream.Tag{}
			}
		}
		if byGoal != nil {
			g.Metrics = byGoal[g.ID]
			if g.Metrics == nil {
				g.Metrics = []upstream.Metric{}
			}
		}
		if tasksByGoal != nil {
			g.Tasks = tasksByGoal[g.ID]
			if g.Tasks == nil {
				g.Tasks = []upstream.Task{}
			}
		}
	}
	return nil
}

// enrichMetrics adds owners to key results, unless fields does not show
// them, and their tasks when fields names tasks.
func (s *Store) enrichMetrics(ctx context.Context, q querier, account string, ms []upstream.Metric, fields query.Projection) error {
	if explicit(fields, "tasks") && len(ms) > 0 {
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.ID
		}
		ts, err := tasks.in(ctx, q, account, "parent_id", ids)
		if err != nil {
			return err
		}
		if err := s.enrichTasks(ctx, q, account, ts, fields["tasks"]); err != nil {
			return err
		}
		byMetric := make(map[string][]upstream.Task)
		for _, t := range ts {
			byMetric[t.ParentID] = append(byMetric[t.ParentID], t)
		}
		for i := range ms {
			ms[i].Tasks = byMetric[ms[i].ID]
			if ms[i].Tasks == nil {
				ms[i].Tasks = []upstream.Task{}
			}
		}
	}
	if !wantsOwners(fields) {
		return nil
	}
	var owners []string
	for _, m := range ms {
		owners = append(owners, m.OwnerIDs...)
	}
	as, err := s.assignees(ctx, q, account, owners)
	if err != nil {
		return err
	}
	for i := range ms {
		ms[i].Assignee, ms[i].Assignees = ownersOf(as, ms[i].OwnerID, ms[i].OwnerIDs)
	}
	return nil
}

// enrichTasks adds the owner to tasks, unless fields does not show it.
func (s *Store) enrichTasks(ctx context.Context, q querier, account string, ts []upstream.Task, fields query.Projection) error {
	if !fields.Has("assignee") {
		return nil
	}
	var owners []string
	for _, t := range ts {
		if t.OwnerID != "" {
			owners = append(owners, t.OwnerID)
		}
	}
	as, err := s.assignees(ctx, q, account, owners)
	if err != nil {
		return err
	}
	for i := range ts {
		if a, ok := as[ts[i].OwnerID]; ok {
			ts[i].Assignee = &a
		}
	}
	return nil
}

// checkOwners verifies that every id names a user or team of the account.
func (s *Store) checkOwners(ctx context.Context, q querier, account, field string, ids []string) error {
	ids = dedupe(ids)
	as, err := s.assignees(ctx, q, account, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, ok := as[id]; !ok {
			return upstream.Invalid(field, "no user or team %q", id)
		}
	}
	return nil
}
