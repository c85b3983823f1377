package resolvers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/resolvers/infra/limits"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Paging limits of connections (the cost functions of package limits
// multiply by them).
const (
	DefaultFirst = limits.DefaultFirst
	MaxFirst     = limits.MaxFirst
)

// fieldName maps a GraphQL filter input field or sort enum value back to the
// registry name: the camelCase input field or ALL_CAPS enum value the schema
// generator made of it, or the deprecated spelling (dots as underscores). A
// name that matches no field is returned with underscores as dots, for the
// filter parser's unknown-field error.
func fieldName(reg *query.Registry, gql string) string {
	for _, f := range reg.Fields() {
		if gql == model.FilterField(f.Name) || gql == model.SortValue(f.Name) || gql == model.LegacyField(f.Name) {
			return f.Name
		}
	}
	return strings.ReplaceAll(gql, "_", ".")
}

// BuildFilter translates a GraphQL filter input (GoalFilter, ...) into the
// REST filter language and validates it against reg, so GraphQL filters mean
// exactly what REST filters mean.
func BuildFilter(reg *query.Registry, in map[string]any) (*query.Expr, error) {
	if len(in) == 0 {
		return nil, nil
	}
	doc, err := translateFilter(reg, in)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, upstream.Invalid("filter", "%v", err)
	}
	e, err := query.ParseFilter(reg, string(b))
	if err != nil {
		return nil, &upstream.Error{Code: upstream.CodeInvalidFilter, Message: err.Error(), Err: err}
	}
	return e, nil
}

func translateFilter(reg *query.Registry, in map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for k, v := range in {
		if v == nil {
			continue
		}
		switch k {
		case "and", "or":
			var list []any
			switch l := v.(type) {
			case []any:
				list = l
			case []map[string]any:
				for _, m := range l {
					list = append(list, m)
				}
			default:
				return nil, upstream.Invalid("filter."+k, "must be a list of filters")
			}
			var subs []any
			for _, item := range list {
				m, ok := item.(map[string]any)
				if !ok {
					return nil, upstream.Invalid("filter."+k, "must be a list of filters")
				}
				sub, err := translateFilter(reg, m)
				if err != nil {
					return nil, err
				}
				if len(sub) > 0 {
					subs = append(subs, sub)
				}
			}
			if len(subs) > 0 {
				out["$"+k] = subs
			}
		default:
			ops, ok := v.(map[string]any)
			if !ok {
				return nil, upstream.Invalid("filter."+k, "must be an operator object")
			}
			cond := map[string]any{}
			for op, val := range ops {
				if val == nil && op != "eq" && op != "ne" {
					continue
				}
				cond["$"+op] = val
			}
			if len(cond) > 0 {
				out[fieldName(reg, k)] = cond
			}
		}
	}
	return out, nil
}

// BuildSort translates orderBy keys.
func BuildSort(reg *query.Registry, order []model.Order) ([]query.SortKey, error) {
	if len(order) > query.MaxSortKeys {
		return nil, upstream.Invalid("orderBy", "at most %d keys", query.MaxSortKeys)
	}
	keys := make([]query.SortKey, 0, len(order))
	seen := map[string]bool{}
	for _, o := range order {
		name := fieldName(reg, o.Field)
		f, ok := reg.Field(name)
		if !ok || !f.Sortable {
			return nil, upstream.Invalid("orderBy", "%q is not sortable", o.Field)
		}
		if seen[f.Name] {
			return nil, upstream.Invalid("orderBy", "%q given twice", o.Field)
		}
		seen[f.Name] = true
		keys = append(keys, query.SortKey{Field: f.Name, Desc: o.Direction == "DESC"})
	}
	return keys, nil
}

// Page is the resolved window of a connection.
type Page struct{ Offset, First int }

// PageArgs validates first/after. Cursors are opaque: base64 of "o:<offset>".
func PageArgs(first *int, after *string) (Page, error) {
	p := Page{First: DefaultFirst}
	if first != nil {
		if *first < 0 || *first > MaxFirst {
			return p, upstream.Invalid("first", "must be between 0 and %d", MaxFirst)
		}
		p.First = *first
	}
	if after != nil && *after != "" {
		off, err := decodeCursor(*after)
		if err != nil {
			return p, upstream.Invalid("after", "not a cursor of this API")
		}
		p.Offset = off + 1
	}
	return p, nil
}

// Cursor encodes the position offset.
func Cursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o:" + strconv.Itoa(offset)))
}

func decodeCursor(c string) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, err
	}
	s, ok := strings.CutPrefix(string(b), "o:")
	if !ok {
		return 0, fmt.Errorf("bad cursor")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("bad cursor")
	}
	return n, nil
}

// listQuery builds the upstream list query of a connection.
func listQuery(ctx context.Context, reg *query.Registry, p Page, filter map[string]any, order []model.Order) (upstream.ListQuery, error) {
	f, err := BuildFilter(reg, filter)
	if err != nil {
		return upstream.ListQuery{}, err
	}
	s, err := BuildSort(reg, order)
	if err != nil {
		return upstream.ListQuery{}, err
	}
	q := upstream.ListQuery{Filter: f, Sort: s, Skip: p.Offset, Limit: max(p.First, 1)}
	if !selects(ctx, "totalCount") {
		// Nobody reads the count: the store skips it, and one item more
		// than the page says whether another page follows (totalOf).
		q.NoCount, q.Limit = true, q.Limit+1
	}
	return q, nil
}

// selects reports whether the selection of the field of ctx names field
// (in any fragment).
func selects(ctx context.Context, field string) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return true
	}
	for _, f := range graphql.CollectFields(graphql.GetOperationContext(ctx), fc.Field.Selections, nil) {
		if f.Name == field {
			return true
		}
	}
	return false
}

// totalOf is the total count of a connection's page at p for pageInfo:
// the store's count, or, for a page asked without one (NoCount), at
// least the items seen, one more than the page shows when another follows.
func totalOf[T any](p Page, page upstream.Page[T]) int {
	if page.TotalCount >= 0 {
		return page.TotalCount
	}
	return p.Offset + len(page.Items)
}

// pageInfo returns the page info and cursors of n items at p out of total.
func pageInfo(p Page, n, total int) (*model.PageInfo, []string) {
	cursors := make([]string, n)
	for i := range cursors {
		cursors[i] = Cursor(p.Offset + i)
	}
	pi := &model.PageInfo{HasNextPage: p.Offset+n < total, HasPreviousPage: p.Offset > 0}
	if n > 0 {
		pi.StartCursor, pi.EndCursor = &cursors[0], &cursors[n-1]
	}
	return pi, cursors
}
