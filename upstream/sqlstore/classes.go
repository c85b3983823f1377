package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

var _ upstream.VisibilityClasser = (*Store)(nil)

// namedTables hold the documents whose ids a decision compares with a
// subject's user id: owners and access entries of goals, key results,
// tasks, sessions and dashboards, and the user-keyed content besides; the
// expression is the text searched for the id, as a JSON string.
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
	subs, err := s.deriveSubjects(ctx, q, callers)
	if err != nil {
		return nil, err
	}
	var users []string
	for _, sub := range subs {
		if !sub.Admin { // an admin's class names no user
			users = append(users, sub.UserID)
		}
	}
	named, err := s.namedUsers(ctx, q, callers[0].AccountID, users)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(callers))
	for i, sub := range subs {
		out[i] = upstream.VisibilityClassOf(sub, named[sub.UserID])
	}
	return out, nil
}

// namedUsers returns which of users some document of the account in
// namedTables names: holds the id as a JSON string ("id", quotes
// included). A match inside a longer string is possible and only makes the
// user's class finer (its id part of it): never coarser. One statement for
// all the users, searched by the database without reading the documents
// out: it returns the index of each user named.
func (s *Store) namedUsers(ctx context.Context, q querier, account string, users []string) (map[string]bool, error) {
	named := map[string]bool{}
	if len(users) == 0 {
		return named, nil
	}
	exists := make([]string, len(namedTables))
	for i, t := range namedTables {
		exists[i] = "EXISTS (SELECT 1 FROM " + t.table + " WHERE account_id = ? AND " + t.column + " LIKE ?)"
	}
	one := " WHERE " + strings.Join(exists, " OR ")
	var parts []string
	var args []any
	for i, u := range users {
		parts = append(parts, "SELECT "+strconv.Itoa(i)+one)
		for range namedTables {
			args = append(args, account, `%"`+u+`"%`)
		}
	}
	rows, err := q.QueryContext(ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: read documents for visibility classes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		if err := rows.Scan(&i); err != nil {
			return nil, fmt.Errorf("sqlstore: read documents for visibility classes: %w", err)
		}
		if i >= 0 && i < len(users) {
			named[users[i]] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: read documents for visibility classes: %w", err)
	}
	return named, nil
}
