package sqlstore

import (
	"context"
	"fmt"
)

// The table size and the rows of one account that the modelled planner
// statistics assume: large enough that an index that narrows the rows by a
// key always beats a walk of the account, and several accounts, so that a
// walk of one account beats a scan of the table.
const (
	plannerRows        = 1_000_000
	plannerAccountRows = 100_000
)

// plannerStats gives SQLite's query planner statistics (sqlite_stat1) for
// every index that has none, modelled on the shape of the data rather than
// measured from it, so that plans do not depend on what a database happens to
// hold (an empty file plans like a full one), and it then makes the
// connection load them (ANALYZE sqlite_schema). Without statistics SQLite
// guesses that account_id = ? selects ten rows, and walks the (account_id,
// id) index of the whole account for "goal_id IN (…) ORDER BY id" to save a
// sort of a few rows (docs/decisions/tree-read-path.md, "Planner statistics").
//
// The model, per index column, is the average number of rows that share the
// values of the columns up to it: an account's rows for account_id,
// one for id and for the last column of a unique index, ten for any other
// key (a goal's key results, a parent's children, a session's goals). Rows
// written by ANALYZE are kept: only indexes without a row get the model, so
// the indexes of later migrations get it too.
func (s *Store) plannerStats(ctx context.Context) error {
	const fill = `INSERT INTO sqlite_stat1 (tbl, idx, stat)
		SELECT t.name, il.name, ? || (
			SELECT group_concat(CASE
					WHEN ii.name = 'account_id' THEN ?
					WHEN ii.name = 'id' OR (il."unique" AND ii.seqno = (SELECT max(seqno) FROM pragma_index_info(il.name))) THEN 1
					ELSE 10 END, ' ' ORDER BY ii.seqno)
			FROM pragma_index_info(il.name) ii)
		FROM sqlite_schema t, pragma_index_list(t.name) il
		WHERE t.type = 'table' AND t.name NOT LIKE 'sqlite_%' AND t.name NOT LIKE 'goose_%'
			AND NOT EXISTS (SELECT 1 FROM sqlite_stat1 s WHERE s.tbl = t.name AND s.idx = il.name)`
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{"ANALYZE sqlite_schema", nil}, // creates sqlite_stat1 when missing
		{fill, []any{fmt.Sprint(plannerRows) + " ", plannerAccountRows}},
		{"ANALYZE sqlite_schema", nil}, // loads the statistics
	} {
		if _, err := s.w.ExecContext(ctx, stmt.sql, stmt.args...); err != nil {
			return fmt.Errorf("sqlstore: planner statistics: %w", err)
		}
	}
	return nil
}
