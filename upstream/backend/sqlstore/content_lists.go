package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// ListTargetTypes returns the target types lists support.
func (s *Store) ListTargetTypes(ctx context.Context) ([]string, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(ctx, s.read(), c, upstream.ListsRead, nil); err != nil {
		return nil, err
	}
	return upstream.ListTargetTypes(), nil
}

// ListTargetSchema describes a target type from its field registry.
func (s *Store) ListTargetSchema(ctx context.Context, targetType string) (upstream.ListSchema, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.ListSchema{}, err
	}
	if err := s.authorize(ctx, s.read(), c, upstream.ListsRead, nil); err != nil {
		return upstream.ListSchema{}, err
	}
	return upstream.ListSchemaFor(targetType)
}

// ListLists lists the account's saved lists.
func (s *Store) ListLists(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.List], error) {
	return listPage(ctx, s, listing[upstream.List]{action: upstream.ListsRead, table: lists}, lq)
}

// GetList returns one saved list.
func (s *Store) GetList(ctx context.Context, id string) (upstream.List, error) {
	q, c, err := s.readAs(ctx, upstream.ListsRead)
	if err != nil {
		return upstream.List{}, err
	}
	return lists.get(ctx, q, c.AccountID, id)
}

// listExprs holds the parsed filter, sort and fields of a list.
type listExprs struct {
	filter *query.Expr
	sort   []query.SortKey
	fields query.Projection
}

// parseListExprs validates a list's filter, sort and fields against the
// registry of its target type.
func parseListExprs(reg *query.Registry, filter map[string]any, sort, fields string) (listExprs, error) {
	var x listExprs
	if len(filter) > 0 {
		raw, err := json.Marshal(filter)
		if err != nil {
			return x, upstream.Invalid("filter", "must be a JSON object")
		}
		if x.filter, err = query.ParseFilter(reg, string(raw)); err != nil {
			return x, err
		}
	}
	var err error
	if x.sort, err = query.ParseSort(reg, sort); err != nil {
		return x, err
	}
	if fields != "" {
		if x.fields, err = query.ParseFields(reg, fields); err != nil {
			return x, err
		}
	}
	return x, nil
}

// checkList validates a list about to be written.
func checkList(l *upstream.List) error {
	var err error
	if l.Title, err = checkText("title", l.Title, true, maxName); err != nil {
		return err
	}
	reg, ok := upstream.ListTargets[l.ListType]
	if !ok {
		return upstream.Invalid("listType", "%q is not a supported list type; use one of %v", l.ListType, upstream.ListTargetTypes())
	}
	l.Columns = nonNil(l.Columns)
	for i, col := range l.Columns {
		if _, ok := reg.Field(col.FieldName); !ok {
			return upstream.Invalid(fmt.Sprintf("columns[%d].fieldName", i), "%q is not a field of %s", col.FieldName, l.ListType)
		}
		if col.Width < 0 {
			return upstream.Invalid(fmt.Sprintf("columns[%d].width", i), "must be ≥ 0")
		}
	}
	if l.Filter == nil {
		l.Filter = map[string]any{}
	}
	_, err = parseListExprs(reg, l.Filter, l.Sort, l.Fields)
	return err
}

// CreateList creates a saved list.
func (s *Store) CreateList(ctx context.Context, in upstream.ListInput) (upstream.List, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.List{}, err
	}
	now := s.timestamp()
	l := upstream.List{ID: s.ids.New(), AccountID: c.AccountID, Title: in.Title, ListType: in.ListType, Columns: in.Columns,
		Filter: in.Filter, Sort: in.Sort, Fields: in.Fields, CreatedByID: c.UserID, DateCreated: now, DateUpdated: now}
	if err := checkList(&l); err != nil {
		return upstream.List{}, err
	}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.ListsManage, nil); err != nil {
			return err
		}
		return lists.insert(ctx, q, c.AccountID, &l)
	})
	if err != nil {
		return upstream.List{}, err
	}
	return l, nil
}

// CloneList copies a list.
func (s *Store) CloneList(ctx context.Context, id string) (upstream.List, error) {
	var l upstream.List
	return writeAs(ctx, s, upstream.ListsManage, &l, func(q querier, c upstream.Caller) error {
		var err error
		if l, err = lists.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		now := s.timestamp()
		l.ID, l.CreatedByID, l.DateCreated, l.DateUpdated = s.ids.New(), c.UserID, now, now
		l.Title += " (copy)"
		if len(l.Title) > maxName {
			l.Title = l.Title[:maxName]
		}
		return lists.insert(ctx, q, c.AccountID, &l)
	})
}

// UpdateList changes a list.
func (s *Store) UpdateList(ctx context.Context, id string, p upstream.ListPatch) (upstream.List, error) {
	var l upstream.List
	return writeAs(ctx, s, upstream.ListsManage, &l, func(q querier, c upstream.Caller) error {
		var err error
		if l, err = lists.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		if p.Title != nil {
			l.Title = *p.Title
		}
		if p.Columns != nil {
			l.Columns = *p.Columns
		}
		if p.Filter != nil {
			l.Filter = *p.Filter
		}
		if p.Sort != nil {
			l.Sort = *p.Sort
		}
		if p.Fields != nil {
			l.Fields = *p.Fields
		}
		l.DateUpdated = s.timestamp()
		if err := checkList(&l); err != nil {
			return err
		}
		return lists.update(ctx, q, c.AccountID, &l)
	})
}

// DeleteList deletes a list.
func (s *Store) DeleteList(ctx context.Context, id string) error {
	return deleteByID(ctx, s, lists, upstream.ListsManage, id)
}

// LoadList runs a list against the real listing of its target type (the
// API's own list operation, so its rules and access checks apply).
func (s *Store) LoadList(ctx context.Context, id string, in upstream.ListLoadInput) (upstream.ListData, error) {
	q, c, err := s.readAs(ctx, upstream.ListsRead)
	if err != nil {
		return upstream.ListData{}, err
	}
	l, err := lists.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.ListData{}, err
	}
	filter, sort, fields := l.Filter, l.Sort, l.Fields
	if in.Filter != nil {
		filter = in.Filter
	}
	if in.Sort != nil {
		sort = *in.Sort
	}
	if in.Fields != nil {
		fields = *in.Fields
	}
	if in.Skip < 0 {
		return upstream.ListData{}, upstream.Invalid("skip", "must be ≥ 0")
	}
	if in.Limit < 0 || in.Limit > upstream.MaxLimit {
		return upstream.ListData{}, upstream.Invalid("limit", "%d is out of range; use 1 to %d", in.Limit, upstream.MaxLimit)
	}
	reg := upstream.ListTargets[l.ListType]
	x, err := parseListExprs(reg, filter, sort, fields)
	if err != nil {
		return upstream.ListData{}, err
	}
	lq := upstream.ListQuery{Filter: x.filter, Sort: x.sort, Fields: x.fields, Skip: in.Skip, Limit: in.Limit}
	var (
		page  any
		total int
	)
	switch l.ListType {
	case "goal":
		page, total, err = pageOf(s.ListGoals(ctx, lq))
	case "metric":
		page, total, err = pageOf(s.ListMetrics(ctx, lq))
	case "task":
		page, total, err = pageOf(s.ListTasks(ctx, lq))
	case "session":
		page, total, err = pageOf(s.ListSessions(ctx, lq, true))
	case "team":
		page, total, err = pageOf(s.ListTeams(ctx, lq))
	case "user":
		page, total, err = pageOf(s.ListUsers(ctx, lq))
	case "kpi":
		page, total, err = pageOf(s.ListKPIs(ctx, lq))
	default:
		return upstream.ListData{}, fmt.Errorf("sqlstore: list %s has unsupported type %q", l.ID, l.ListType)
	}
	if err != nil {
		return upstream.ListData{}, err
	}
	raw, err := json.Marshal(page)
	if err != nil {
		return upstream.ListData{}, fmt.Errorf("sqlstore: encode list items: %w", err)
	}
	items := []map[string]any{}
	if err := json.Unmarshal(raw, &items); err != nil {
		return upstream.ListData{}, fmt.Errorf("sqlstore: decode list items: %w", err)
	}
	if items == nil {
		items = []map[string]any{}
	}
	if x.fields != nil {
		for i := range items {
			items[i] = x.fields.Apply(items[i])
		}
	}
	return upstream.ListData{List: l, Items: items, TotalCount: total}, nil
}

// pageOf erases a page's item type so LoadList can run any listing.
func pageOf[T any](p upstream.Page[T], err error) (any, int, error) {
	return p.Items, p.TotalCount, err
}
