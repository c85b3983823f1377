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
	// shape. Embedded collections (a goal's metrics and tasks) are loaded
	// only when Fields names them.
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
