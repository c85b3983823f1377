package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

var _ upstream.VisibilityClasser = (*Store)(nil)

// namedTables hold the rows whose ids a decision compares with a subject's
// user id: the tables of upstream.Resources whose rows name users
// (upstream.Table.Users: owners and access entries in the documents of
// goals, key results, tasks, sessions, dashboards..., favourites by user),
// each with the expression that is the text searched for the id, as a
// JSON string.
var namedTables = func() []struct{ table, column string } {
	var out []struct{ table, column string }
	for _, t := range upstream.UserNamingTables() {
		col := "'\"' || " + t.Users + " || '\"'"
		if t.Users == upstream.UsersInDoc {
			col = "CAST(doc AS TEXT)"
		}
		out = append(out, struct{ table, column string }{t.Name, col})
	}
	return out
}()

// VisibilityClasses returns the visibility class of each caller (all of
// one account): two callers with the same class are decided alike on every
// item (upstream.VisibilityClasser). The class is derived now, from the
// callers' current roles, teams and grants, and from what the account's
// documents name: the user id is part of a class only when some document
// names it (an owner, an access entry, a favourite...), since only then can
// a decision depend on it. It costs one read of the account's documents and
// three queries for all the callers (deriveSubjects), however many.
func (s *Store) VisibilityClasses(ctx context.Context, callers []upstream.Caller) ([]string, error) {
	return s.VisibilityClassesNamed(ctx, callers, nil)
}

var _ upstream.NamedClasser = (*Store)(nil)

// VisibilityClassesNamed is VisibilityClasses given which users the
// account's items name (NamedUsers, upstream.NamedClasser): the items are
// read only for callers whose users named does not hold.
func (s *Store) VisibilityClassesNamed(ctx context.Context, callers []upstream.Caller, named map[string]bool) ([]string, error) {
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
		if _, known := named[sub.UserID]; !known && !sub.Admin { // an admin's class names no user
			users = append(users, sub.UserID)
		}
	}
	found, err := s.namedUsers(ctx, q, callers[0].AccountID, users)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(callers))
	for i, sub := range subs {
		out[i] = upstream.VisibilityClassOf(sub, named[sub.UserID] || found[sub.UserID])
	}
	return out, nil
}

// NamedUsers returns, for every user of the account, whether some document
// of the account in namedTables names it (upstream.NamedClasser): one read
// of the account's documents, as VisibilityClasses makes for its callers.
func (s *Store) NamedUsers(ctx context.Context, account string) (map[string]bool, error) {
	q := s.read()
	rows, err := q.QueryContext(ctx, "SELECT id FROM users WHERE account_id = ?", account)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: users for visibility classes: %w", err)
	}
	users, err := scanStrings(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: users for visibility classes: %w", err)
	}
	found, err := s.namedUsers(ctx, q, account, users)
	if err != nil {
		return nil, err
	}
	named := make(map[string]bool, len(users))
	for _, u := range users {
		named[u] = found[u]
	}
	return named, nil
}

// namedUsers returns which of users some document of the account in
// namedTables names: holds the id as a JSON string ("id", quotes
// included). A match inside a longer string is possible and only makes the
// user's class finer (its id part of it): never coarser. One read of the
// account's documents for all the users (namedIn searches each), stopped
// once every user is found: a burst of new callers derived together reads
// them once, not once per caller.
func (s *Store) namedUsers(ctx context.Context, q querier, account string, users []string) (map[string]bool, error) {
	named := map[string]bool{}
	if len(users) == 0 {
		return named, nil
	}
	want := make(map[string]bool, len(users))
	longest := 0
	for _, u := range users {
		want[u] = true
		longest = max(longest, len(u))
	}
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
	var doc sql.RawBytes
	for len(named) < len(want) && rows.Next() {
		if err := rows.Scan(&doc); err != nil {
			return nil, fmt.Errorf("sqlstore: read documents for visibility classes: %w", err)
		}
		namedIn(doc, want, longest, named)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: read documents for visibility classes: %w", err)
	}
	return named, nil
}

// namedIn adds to named each id of want that text holds between two
// quotes ("id"): the text between every two consecutive quotes is looked
// up, which finds exactly the substrings "id" for ids without a quote (what
// LIKE '%"id"%' finds, case included). longest is the longest id's length.
func namedIn(text []byte, want map[string]bool, longest int, named map[string]bool) {
	open := bytes.IndexByte(text, '"')
	for open >= 0 {
		n := bytes.IndexByte(text[open+1:], '"')
		if n < 0 {
			return
		}
		if n > 0 && n <= longest {
			if id := text[open+1 : open+1+n]; want[string(id)] {
				named[string(id)] = true
			}
		}
		open += 1 + n
	}
}
