//go:build driverbench

package sqlstore

import (
	"context"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// subtree returns the goal id and all its descendants.
func subtree(ctx context.Context, q querier, account, id string) ([]upstream.Goal, error) {
	rows, err := q.QueryContext(ctx, descendants+` SELECT g.doc FROM down CROSS JOIN goals g ON g.id = down.id ORDER BY g.id`, id, account)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load tree of %s: %w", id, err)
	}
	gs, err := scanDocs[upstream.Goal](rows)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load tree of %s: %w", id, err)
	}
	return gs, nil
}
