package sqlstoretest_test

import (
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestCheckAccountScope pins what the account-scope check accepts and
// refuses, on the shapes of statement the store uses.
func TestCheckAccountScope(t *testing.T) {
	for _, c := range []struct {
		stmt string
		open string // the tables reported, "" when accepted
	}{
		{"SELECT doc FROM goals WHERE account_id = ? AND id = ?", ""},
		{"SELECT doc FROM goals WHERE id = ?", "goals"},
		{"SELECT doc FROM goals WHERE account_id IN (SELECT value FROM json_each(?))", ""},
		{"UPDATE goals SET doc = ? WHERE id = ? AND account_id = ?", ""},
		{"UPDATE webhooks SET last_position = ? WHERE id = ?", "webhooks"},
		{"DELETE FROM tasks WHERE account_id = $1 AND parent_id = $2", ""},
		{"DELETE FROM tasks WHERE parent_id = ?", "tasks"},
		{"INSERT INTO tags (id, account_id, name, doc) VALUES (?, ?, ?, ?)", ""},
		{"INSERT INTO goal_subtrees (goal_id, attainment) VALUES (?, ?)", "goal_subtrees"},
		// Joins: on the account column of a constrained table, or not.
		{"SELECT it.item_id, t.doc FROM item_tags it JOIN tags t ON t.id = it.tag_id AND t.account_id = it.account_id WHERE it.account_id = ?", ""},
		{"SELECT it.item_id, t.doc FROM item_tags it JOIN tags t ON t.id = it.tag_id WHERE it.account_id = ?", "tags"},
		{"SELECT g.id FROM goals g LEFT JOIN goal_subtrees t ON t.goal_id = g.id WHERE g.account_id = ?", "goal_subtrees"},
		// A table after a table that is not an account's (a CTE) is seen.
		{"SELECT g.id FROM up JOIN goals g ON g.id = up.id WHERE up.depth < 3", "goals"},
		{"SELECT g.id FROM up JOIN goals g ON g.id = up.id LEFT JOIN goal_subtrees t ON t.goal_id = up.id AND t.account_id = g.account_id WHERE g.account_id = $4", ""},
		// Scopes: a subquery's condition does not constrain the outer read,
		// and an alias reused in another scope is another table.
		{"SELECT doc FROM goals WHERE id IN (SELECT id FROM goals WHERE account_id = ? LIMIT ?)", "goals"},
		{"SELECT doc FROM goals WHERE id IN (SELECT id FROM goals WHERE account_id = ? LIMIT ?) AND account_id = ?", ""},
		{`WITH RECURSIVE down(id) AS (SELECT ? UNION SELECT g.id FROM down CROSS JOIN goals g ON g.account_id = ? AND g.parent_id = down.id)
			SELECT g.doc FROM down CROSS JOIN goals g ON g.id = down.id`, "goals"},
		{`WITH RECURSIVE down(id) AS (SELECT ? UNION SELECT g.id FROM down CROSS JOIN goals g ON g.account_id = ? AND g.parent_id = down.id)
			SELECT g.doc FROM down CROSS JOIN goals g ON g.id = down.id WHERE g.account_id = ?`, ""},
		// A correlated subquery sees the outer alias.
		{"SELECT t.doc, (SELECT count(*) FROM item_tags it WHERE it.account_id = t.account_id AND it.tag_id = t.id) FROM tags t WHERE t.account_id = ?", ""},
		{"SELECT t.doc, (SELECT count(*) FROM item_tags it WHERE it.tag_id = t.id) FROM tags t WHERE t.account_id = ?", "item_tags"},
		// A derived table constrained from outside.
		{"SELECT doc FROM (SELECT account_id, doc FROM item_tags) AS taggings WHERE account_id = ?", ""},
		{"SELECT doc FROM (SELECT doc FROM item_tags) AS taggings WHERE kind = ?", "item_tags"},
		// Literals and comments are not conditions; global tables need none.
		{"SELECT doc FROM goals WHERE name = 'account_id = 1'", "goals"},
		{"SELECT doc FROM goals -- account_id = ?\n WHERE id = ?", "goals"},
		{"SELECT count(*) FROM accounts", ""},
		{"SELECT version_id FROM goose_db_version", ""},
		// A declared cross-account statement is not checked.
		{"/* all accounts: retention */ DELETE FROM events WHERE at < ?", ""},
	} {
		_, err := sqlstoretest.CheckAccountScope(c.stmt)
		switch {
		case c.open == "" && err != nil:
			t.Errorf("%s: refused: %v", c.stmt, err)
		case c.open != "" && (err == nil || !strings.HasPrefix(err.Error(), c.open+" ")):
			t.Errorf("%s: %v, want %s reported", c.stmt, err, c.open)
		}
	}
	if reason, _ := sqlstoretest.CheckAccountScope("/* all accounts: retention */ DELETE FROM events"); reason != "retention" {
		t.Errorf("reason %q", reason)
	}
}
