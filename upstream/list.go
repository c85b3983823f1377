package upstream

import "github.com/okrgate/okrgate/upstream/query"

// Paging limits of every listing.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Formatting modes of text fields; the REST facade applies them.
const (
	MentionsMarkup = "mentionsMarkup"
	PlainText      = "plainText"
)

// ListQuery is the query of a list operation: a validated filter, a sort, a
// projection and a page. The zero value lists the first DefaultLimit items.
type ListQuery struct {
	Filter *query.Expr
	Sort   []query.SortKey
	// Fields is the projection the caller asked for; nil means the default
	// shape, with everything below loaded. A store loads what costs a join
	// only when Fields shows it (query.Projection.Has, a map lookup; a
	// projection such as query.Projection{"id": nil, "name": nil} is enough):
	//
	//   - "assignee" or "assignees" (goals, key results; "assignee" for
	//     tasks): the owners resolved to users and teams;
	//   - "tags" (goals): the goal's tags;
	//   - "currentUserAllowedActions" (goals, key results): the caller's
	//     allowed actions (for key results of non-admins, a read of their
	//     goals);
	//   - "metrics" and "tasks" (goals): the embedded key results and tasks,
	//     only when named (also not in the default shape); their
	//     sub-projection decides the same for them.
	//
	// Fields not shown keep what the stored document holds (nothing for
	// these). What a caller may see is decided whatever Fields says.
	Fields query.Projection
	Skip   int
	Limit  int // 0 means DefaultLimit
	// All asks for every match from Skip on, in one page, without a
	// count: a store that can read them in one statement (sqlstore)
	// returns them all and sets TotalCount to Skip+len(Items). Others (a
	// gateway, bound by the REST API's page size) answer one page of
	// PageLimit items with the total, and the caller pages on (see
	// Complete). Loaders that load a whole level of a query ask so, and so
	// make one call per level however large the level.
	All bool
	// NoCount says the caller does not read TotalCount (a connection whose
	// totalCount is not selected): a store may skip counting and set
	// TotalCount to -1, and the caller then learns whether more follow by
	// asking for one item more than it shows.
	NoCount bool
	// Decode, when not nil, names the top-level keys of the stored
	// documents that the caller reads (a GraphQL level that selects a few
	// fields of each object): a store may read and decode only these, and
	// those it needs itself to decide visibility and enrichments, and leave
	// the other fields at their zero values. Nil means whole documents.
	Decode []string
}

// Complete reports whether p, the answer to q, holds every match from
// q.Skip on: a store answered q.All in one page, or the page is the last.
func Complete[T any](q ListQuery, p Page[T]) bool {
	n := len(p.Items)
	return n == 0 || n < q.PageLimit() || p.TotalCount >= 0 && q.Skip+n >= p.TotalCount
}

// PageLimit returns the effective limit of q: for All without a limit,
// MaxLimit (the page a store that cannot answer All returns).
func (q ListQuery) PageLimit() int {
	if q.Limit <= 0 && q.All {
		return MaxLimit
	}
	if q.Limit <= 0 {
		return DefaultLimit
	}
	return q.Limit
}

// Page is one page of a listing with the total number of matching items.
type Page[T any] struct {
	Items      []T `json:"items"`
	TotalCount int `json:"totalCount"`
}
