package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// ListCheckInSnapshots lists the check-ins ListCheckIns lists (the same
// filter, order, page and visibility), each with the key result as it was
// right after it, read from the check-ins' snapshots in one more query.
func (s *Store) ListCheckInSnapshots(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.CheckInSnapshot], error) {
	p, err := s.ListCheckIns(ctx, lq)
	if err != nil {
		return upstream.Page[upstream.CheckInSnapshot]{}, err
	}
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Page[upstream.CheckInSnapshot]{}, err
	}
	out := upstream.Page[upstream.CheckInSnapshot]{Items: make([]upstream.CheckInSnapshot, 0, len(p.Items)), TotalCount: p.TotalCount}
	if len(p.Items) == 0 {
		return out, nil
	}
	ids := make([]string, len(p.Items))
	for i, ci := range p.Items {
		ids[i] = ci.ID
	}
	rows, err := s.read().QueryContext(ctx, "SELECT id, snapshot FROM checkins WHERE account_id = ? AND id IN "+idList, c.AccountID, idsParam(ids))
	if err != nil {
		return out, fmt.Errorf("sqlstore: read snapshots: %w", err)
	}
	defer rows.Close()
	snaps := make(map[string]upstream.Metric, len(ids))
	for rows.Next() {
		var id string
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return out, fmt.Errorf("sqlstore: read snapshots: %w", err)
		}
		var m upstream.Metric
		if err := json.Unmarshal(raw, &m); err != nil {
			return out, fmt.Errorf("sqlstore: decode the snapshot of check-in %s: %w", id, err)
		}
		snaps[id] = m
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("sqlstore: read snapshots: %w", err)
	}
	for _, ci := range p.Items {
		m, ok := snaps[ci.ID]
		if !ok {
			// Deleted with its key result between the two reads: the page
			// is read again rather than answered short.
			return upstream.Page[upstream.CheckInSnapshot]{}, upstream.Errorf(upstream.CodeConflict, "check-in %s was deleted while its page was read; read the page again", ci.ID)
		}
		out.Items = append(out.Items, upstream.CheckInSnapshot{CheckIn: ci, KeyResult: m})
	}
	return out, nil
}
