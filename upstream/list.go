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
}

// PageLimit returns the effective limit of q.
func (q ListQuery) PageLimit() int {
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
