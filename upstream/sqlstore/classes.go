package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

var _ upstream.VisibilityClasser = (*Store)(nil)

// namedTables hold the documents whose ids a decision compares with a
// subject's user id: owners and access entries of goals, key results,
// tasks, sessions and dashboards, and the user-keyed content besides.
var namedTables = []struct{ table, column string }{
	{"goals", "CAST(doc AS TEXT)"}, {"metrics", "CAST(doc AS TEXT)"}, {"tasks", "CAST(doc AS TEXT)"},
	{"sessions", "CAST(doc AS TEXT)"}, {"dashboards", "CAST(doc AS TEXT)"},
	{"lists", "CAST(doc AS TEXT)"}, {"kpis", "CAST(doc AS TEXT)"}, {"kpi_groups", "CAST(doc AS TEXT)"},
	{"badges", "CAST(doc AS TEXT)"}, {"badge_assignments", "CAST(doc AS TEXT)"}, {"announcements", "CAST(doc AS TEXT)"},
	{"kpi_favorites", "'\"' || user_id || '\"'"},
}

// VisibilityClasses returns the visibility class of each caller (all of
// one account): two callers with the same class are decided alike on every
// item (upstream.VisibilityClasser). The class is derived now, from the
// callers' current roles, teams and grants, and from what the account's
// documents name: the user id is part of a class only when some document
// names it (an owner, an access entry, a favourite...), since only then can
// a decision depend on it. It costs one read of the account's documents and
// three queries for all the callers (deriveSubjects), however many.
func (s *Store) VisibilityClasses(ctx context.Context, callers []upstream.Caller) ([]string, error) {
	if len(callers) == 0 {
		return nil, nil
	}
	for _, c := range callers {
		if c.AccountID != callers[0].AccountID {
			return nil, fmt.Errorf("sqlstore: visibility classes of several accounts")
		}
	}
	q := s.read()
	named, err := s.namedIDs(ctx, q, callers[0].AccountID)
	if err != nil {
		return nil, err
	}
	subs, err := s.deriveSubjects(ctx, q, callers)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(callers))
	for i, sub := range subs {
		out[i] = upstream.VisibilityClassOf(sub, named[sub.UserID])
	}
	return out, nil
}

// namedIDs returns every string the account's documents in namedTables
// hold (a superset of the principal ids they name), and the users of its
// KPI favourites: one statement over all the tables.
func (s *Store) namedIDs(ctx context.Context, q querier, account string) (map[string]bool, error) {
	parts := make([]string, len(namedTables))
	args := make([]any, len(namedTables))
	for i, t := range namedTables {
		parts[i] = "SELECT " + t.column + " FROM " + t.table + " WHERE account_id = ?"
		args[i] = account
	}
	rows, err := q.QueryContext(ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: read documents for visibility classes: %w", err)
	}
	defer rows.Close()
	named := map[string]bool{}
	for rows.Next() {
		var doc string
		if err := rows.Scan(&doc); err != nil {
			return nil, fmt.Errorf("sqlstore: read documents for visibility classes: %w", err)
		}
		jsonStrings(doc, named)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: read documents for visibility classes: %w", err)
	}
	return named, nil
}

// jsonStrings adds the strings of the JSON document doc (keys and values)
// to set.
func jsonStrings(doc string, set map[string]bool) {
	dec := json.NewDecoder(strings.NewReader(doc))
	for {
		t, err := dec.Token()
		if err != nil {
			return
		}
		if s, ok := t.(string); ok {
			set[s] = true
		}
	}
}
