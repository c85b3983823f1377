package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// heldBadges returns, for each of holders (user or team ids), the badges of
// its approved assignments, each badge once, in assignment order: one query
// for a whole page of employees or teams.
func (s *Store) heldBadges(ctx context.Context, q querier, account string, holders []string) (map[string][]upstream.Badge, error) {
	out := map[string][]upstream.Badge{}
	if len(holders) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT j.value, b.doc FROM badge_assignments a
		JOIN badges b ON b.id = a.badge_id AND b.account_id = a.account_id
		CROSS JOIN `+dialectOf(q).each("a.doc", "j", "assigneeIds")+`
		WHERE a.account_id = ? AND a.status = ? AND j.value IN (SELECT value FROM json_each(?))
		ORDER BY a.id`, account, upstream.BadgeApproved, idsParam(holders))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load held badges: %w", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var holder string
		var raw []byte
		if err := rows.Scan(&holder, &raw); err != nil {
			return nil, fmt.Errorf("sqlstore: load held badges: %w", err)
		}
		var b upstream.Badge
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("sqlstore: decode badge: %w", err)
		}
		if seen[holder+"/"+b.ID] {
			continue
		}
		seen[holder+"/"+b.ID] = true
		out[holder] = append(out[holder], b)
	}
	return out, rows.Err()
}

// withBadges fills the badges teams hold.
func (s *Store) withBadges(ctx context.Context, q querier, account string, ts []upstream.Team) error {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	held, err := s.heldBadges(ctx, q, account, ids)
	if err != nil {
		return err
	}
	for i := range ts {
		ts[i].Badges = nonNil(held[ts[i].ID])
	}
	return nil
}
