package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// table maps one resource type to its SQL table: the JSON document in column
// doc, and key columns (beyond id and account_id) that are kept in step with
// the document on every write.
type table[T any] struct {
	name string // SQL table
	kind string // resource name in errors
	reg  *query.Registry
	cols []string        // key columns after id and account_id
	keys func(*T) []any  // values of cols for a document
	id   func(*T) string // the document's id
	// event, when set, describes a write of a document for the event log
	// (events.go): insert, update and deleteWhere append one per document.
	event func(*T, verb) upstream.Event
	// own, when set, are the document keys the store reads itself after a
	// list (visibility, enrichments, the keys of the rows): a list that
	// asks for a few keys (upstream.ListQuery.Decode) reads these and
	// those (docSQL). Tables without own always read whole documents.
	own []string
}

// verb is what a write did to a document.
type verb int

const (
	created verb = iota
	updated
	deleted
)

// emitFor appends the event of a write of v, if t has events.
func (t table[T]) emitFor(q querier, account string, v *T, what verb) {
	if t.event != nil {
		e := t.event(v, what)
		e.AccountID = account
		emit(q, e)
	}
}

// idsParam encodes ids as one JSON array parameter, used as
// "IN (SELECT value FROM json_each(?))": one bound value however many ids,
// so a batch never meets SQLite's variable limit.
func idsParam(ids []string) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// list returns one page of the documents of account matching lq, plus the
// total count of matches.
func (t table[T]) list(ctx context.Context, q querier, account string, lq upstream.ListQuery) ([]T, int, error) {
	return t.listFrom(ctx, q, t.name, nil, account, lq)
}

// listFrom is list over a source with the table's columns: the table itself,
// or a subquery that narrows it (to what the caller may see) with srcArgs.
func (t table[T]) listFrom(ctx context.Context, q querier, src string, srcArgs []any, account string, lq upstream.ListQuery) ([]T, int, error) {
	return t.listFromHiding(ctx, q, src, srcArgs, nil, account, lq)
}

// listFromHiding is listFrom for a source that is the table less the rows
// hidden selects (hiddenRows; nil: count the source itself).
func (t table[T]) listFromHiding(ctx context.Context, q querier, src string, srcArgs []any, hidden hiddenRows, account string, lq upstream.ListQuery) ([]T, int, error) {
	from := t.name
	if src != t.name {
		from = src + " AS " + t.name
	}
	where, filterArgs := filterSQL(q, lq.Filter, t.reg, "doc")
	args := append(append(slices.Clone(srcArgs), account), filterArgs...)
	doc, rd := t.docSQL(dialectOf(q), lq)
	if lq.All {
		return t.listAll(ctx, q, from, doc, rd, where, args, lq)
	}
	if lq.NoCount {
		return t.listUncounted(ctx, q, from, doc, rd, where, account, args, lq)
	}
	count, countArgs := "SELECT count(*) FROM "+from+" WHERE account_id = ? AND ("+where+")", args
	if hidden != nil {
		count, countArgs = t.countHidingSQL(hidden, where, account, filterArgs)
	}
	var total int
	if err := q.QueryRowContext(ctx, count, countArgs...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count %s: %w", t.name, err)
	}
	if total == 0 || lq.Skip >= total {
		return []T{}, total, nil
	}
	limit := lq.PageLimit()
	if desc, ok := idOrder(lq.Sort); ok && t.id != nil && lq.Skip == 0 && total <= limit {
		// The page holds every match: read them in index order and sort
		// them here (sortByID).
		rows, err := q.QueryContext(ctx, "SELECT "+doc+" FROM "+from+" WHERE account_id = ? AND ("+where+")", args...)
		if err != nil {
			return nil, 0, fmt.Errorf("sqlstore: list %s: %w", t.name, err)
		}
		items, err := scanDocsN[T](rows, total, rd)
		if err != nil {
			return nil, 0, fmt.Errorf("sqlstore: list %s: %w", t.name, err)
		}
		t.sortByID(items, desc)
		if len(items) > limit { // rows added since the count
			items = items[:limit]
		}
		return items, total, nil
	}
	page, pageArgs := t.pageSQL(dialectOf(q), from, doc, where, lq.Sort), append(args, limit, lq.Skip)
	if lq.Filter != nil && !strings.ContainsAny(t.name, " (") { // a table, not a view's subquery
		page, pageArgs = t.pageByIDsSQL(dialectOf(q), from, doc, where, lq.Sort), append(pageArgs, account)
	}
	rows, err := q.QueryContext(ctx, page, pageArgs...)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list %s: %w", t.name, err)
	}
	items, err := scanDocsN[T](rows, min(limit, total-lq.Skip), rd)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list %s: %w", t.name, err)
	}
	return items, total, nil
}

// listAll is listFrom for lq.All: every match from lq.Skip on, in one
// statement and without a count (TotalCount is Skip plus the items).
// Matches in id order are read in index order and sorted here (sortByID),
// as a page that holds every match is.
func (t table[T]) listAll(ctx context.Context, q querier, from, doc string, rd rowDoc, where string, args []any, lq upstream.ListQuery) ([]T, int, error) {
	stmt := "SELECT " + doc + " FROM " + from + " WHERE account_id = ? AND (" + where + ")"
	desc, byID := idOrder(lq.Sort)
	byID = byID && t.id != nil
	if !byID || lq.Skip > 0 {
		stmt += " ORDER BY " + query.OrderBy(dialectOf(q).query(), t.reg, "doc", lq.Sort)
		if lq.Skip > 0 {
			stmt += " LIMIT -1 OFFSET ?"
			if dialectOf(q).name() == "postgres" {
				stmt = strings.Replace(stmt, "LIMIT -1 ", "", 1)
			}
			args = append(args, lq.Skip)
		}
		byID = false
	}
	rows, err := q.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list %s: %w", t.name, err)
	}
	items, err := scanDocsN[T](rows, 0, rd)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list %s: %w", t.name, err)
	}
	if byID {
		t.sortByID(items, desc)
	}
	return items, lq.Skip + len(items), nil
}

// listUncounted is listFrom for lq.NoCount: the page alone, TotalCount -1.
func (t table[T]) listUncounted(ctx context.Context, q querier, from, doc string, rd rowDoc, where, account string, args []any, lq upstream.ListQuery) ([]T, int, error) {
	limit := lq.PageLimit()
	page, pageArgs := t.pageSQL(dialectOf(q), from, doc, where, lq.Sort), append(args, limit, lq.Skip)
	if lq.Filter != nil && !strings.ContainsAny(t.name, " (") {
		page, pageArgs = t.pageByIDsSQL(dialectOf(q), from, doc, where, lq.Sort), append(pageArgs, account)
	}
	rows, err := q.QueryContext(ctx, page, pageArgs...)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list %s: %w", t.name, err)
	}
	items, err := scanDocsN[T](rows, min(limit, 64), rd)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list %s: %w", t.name, err)
	}
	return items, -1, nil
}

// byIDs sorts items by their ids (ids[i] is the id of items[i]) without
// copying the items but to swap them.
type byIDs[T any] struct {
	items []T
	ids   []string
}

func (b byIDs[T]) Len() int           { return len(b.ids) }
func (b byIDs[T]) Less(i, j int) bool { return b.ids[i] < b.ids[j] }
func (b byIDs[T]) Swap(i, j int) {
	b.items[i], b.items[j] = b.items[j], b.items[i]
	b.ids[i], b.ids[j] = b.ids[j], b.ids[i]
}

// idOrder reports whether sort orders by id alone (the id tie-breaker that
// ends every sort, or an explicit id first), and in which direction. Ids
// compare bytewise in SQLite (BINARY) as in Go.
func idOrder(sort []query.SortKey) (desc, ok bool) {
	if len(sort) == 0 {
		return false, true
	}
	if f := sort[0].Field; f == "id" || f == "_id" {
		return sort[0].Desc, true
	}
	return false, false
}

// pageSQL is the statement of one page: the documents of from (the table,
// or a narrowing subquery named like it) matching where, in sort order.
// Its parameters are the account, where's, the limit and the offset; doc
// is what it reads of each row (docSQL).
func (t table[T]) pageSQL(d dialect, from, doc, where string, sort []query.SortKey) string {
	order := query.OrderBy(d.query(), t.reg, "doc", sort)
	return "SELECT " + doc + " FROM " + from + " WHERE account_id = ? AND (" + where + ") ORDER BY " + order + " LIMIT ? OFFSET ?"
}

// pageByIDsSQL is pageSQL in two steps, for a filtered list of more than a
// page (an edge's level loaded page after page): the ids of the page, sorted
// and cut in an index where one covers the filter, then the documents of
// those ids. The one-step page sorts every match with its document, page
// after page: the key results of 1,000 goals, three pages of 1,000, read
// and sorted ~9,000 documents, and more slowly the larger the account.
// Unfiltered pages keep pageSQL, whose plan walks the (account_id, id)
// index without sorting. The parameters of pageSQL, then the account
// again (the documents' read names its account too); every table's id is
// its primary key (views, like taggings, keep pageSQL).
func (t table[T]) pageByIDsSQL(d dialect, from, doc, where string, sort []query.SortKey) string {
	order := query.OrderBy(d.query(), t.reg, "doc", sort)
	// The page's ids are a derived table joined to the documents, not an
	// IN (subquery): PostgreSQL cannot flatten a subquery with LIMIT, and
	// on a fresh database's estimates it planned one re-run per row (a
	// 1,070-key page computed past statement_timeout); a join is planned
	// as one. page_id keeps the outer id, doc and order unambiguous.
	return "SELECT " + doc + " FROM (SELECT id AS page_id FROM " + from + " WHERE account_id = ? AND (" + where +
		") ORDER BY " + order + " LIMIT ? OFFSET ?) page JOIN " + t.name + " ON id = page.page_id AND account_id = ? ORDER BY " + order
}

// maxDecodeKeys bounds the keys of a narrowed document (docSQL): above it
// the whole document is read.
const maxDecodeKeys = 40

// docSQL is what a list of lq reads of each row, and how scanDocsN makes
// of a row the document it decodes: the whole document, or, when lq names
// the few keys its caller reads (upstream.ListQuery.Decode), the members
// under those keys and the table's own (t.own), as the dialect reads them
// (dialect.narrow: picked from whole documents in SQLite, one column each in
// PostgreSQL). Either way the store decodes only what the answer needs:
// decoding whole documents was most of a large tree's time and memory where
// the selection reads three fields of each object (docs/decisions/tree-read-path.md, "A
// level decodes only what it selects"). Absent keys decode as null ones
// do. A caller's allowed actions are decided on whole documents.
func (t table[T]) docSQL(d dialect, lq upstream.ListQuery) (string, rowDoc) {
	if lq.Decode == nil || t.own == nil || lq.Fields.Has("currentUserAllowedActions") {
		return "doc", rowDoc{}
	}
	keys := slices.Concat(t.own, lq.Decode)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if len(keys) > maxDecodeKeys || slices.ContainsFunc(keys, func(k string) bool { return !plainKey(k) }) {
		return "doc", rowDoc{}
	}
	return d.narrow(keys, t.column)
}

// column is the key column of t that holds the document key k (id,
// account_id and t.cols, kept in step with the document on every write:
// goal_id holds goalId), "" when none does.
func (t table[T]) column(k string) string {
	for _, c := range append([]string{"id", "account_id"}, t.cols...) {
		if strings.EqualFold(strings.ReplaceAll(c, "_", ""), k) {
			return c
		}
	}
	return ""
}

// plainKey reports whether k is a key docSQL may spell in SQL: letters,
// digits and underscores.
func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// where returns all documents of account matching a SQL condition on the
// table's columns, in id order (sorted here when the table knows its ids,
// see sortByID).
func (t table[T]) where(ctx context.Context, q querier, account, cond string, args ...any) ([]T, error) {
	order := " ORDER BY id"
	if t.id != nil {
		order = ""
	}
	rows, err := q.QueryContext(ctx, "SELECT doc FROM "+t.name+" WHERE account_id = ? AND ("+cond+")"+order, append([]any{account}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: select %s: %w", t.name, err)
	}
	items, err := scanDocs[T](rows)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: select %s: %w", t.name, err)
	}
	if t.id != nil {
		t.sortByID(items, false)
	}
	return items, nil
}

// sortByID sorts items by id, as SQLite's ORDER BY id would (ids compare
// bytewise in both). Reading matches without ORDER BY and sorting them here
// spares SQLite a temporary B-tree of whole documents, whose pages cost an
// allocation and a release each (docs/decisions/tree-read-path.md, "A page that holds every
// match is sorted in Go").
func (t table[T]) sortByID(items []T, desc bool) {
	ids := make([]string, len(items))
	for i := range items {
		ids[i] = t.id(&items[i])
	}
	var order sort.Interface = byIDs[T]{items, ids}
	if desc {
		order = sort.Reverse(order)
	}
	sort.Sort(order)
}

// in returns the documents of account whose column col is one of values.
func (t table[T]) in(ctx context.Context, q querier, account, col string, values []string) ([]T, error) {
	if len(values) == 0 {
		return nil, nil
	}
	return t.where(ctx, q, account, col+" IN "+idList, idsParam(values))
}

// get returns one document, or a not_found error. Ids of other accounts are
// not found either.
func (t table[T]) get(ctx context.Context, q querier, account, id string) (T, error) {
	var zero T
	if !upstream.ValidID(id) {
		return zero, upstream.NotFound(t.kind, id)
	}
	if v, ok := cachedDoc[T](q, t.name, id); ok {
		return v, nil // a Bulk batch's (bulk.go)
	}
	var raw []byte
	err := q.QueryRowContext(ctx, "SELECT doc FROM "+t.name+" WHERE id = ? AND account_id = ?", id, account).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return zero, upstream.NotFound(t.kind, id)
	}
	if err != nil {
		return zero, fmt.Errorf("sqlstore: get %s %s: %w", t.kind, id, err)
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return zero, fmt.Errorf("sqlstore: decode %s %s: %w", t.kind, id, err)
	}
	keepDoc(q, t.name, id, raw)
	return v, nil
}

// insert stores a new document.
func (t table[T]) insert(ctx context.Context, q querier, account string, v *T) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("sqlstore: encode %s: %w", t.kind, err)
	}
	cols := append([]string{"id", "account_id"}, t.cols...)
	args := append([]any{t.id(v), account}, t.keys(v)...)
	cols = append(cols, "doc")
	args = append(args, string(doc))
	ph := strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",")
	if _, err := q.ExecContext(ctx, "INSERT INTO "+t.name+" ("+strings.Join(cols, ",")+") VALUES ("+ph+")", args...); err != nil {
		return fmt.Errorf("sqlstore: insert %s: %w", t.kind, err)
	}
	keepDoc(q, t.name, t.id(v), doc)
	t.emitFor(q, account, v, created)
	return nil
}

// update replaces a document and its key columns.
func (t table[T]) update(ctx context.Context, q querier, account string, v *T) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("sqlstore: encode %s: %w", t.kind, err)
	}
	set := make([]string, 0, len(t.cols)+1)
	for _, c := range t.cols {
		set = append(set, c+" = ?")
	}
	set = append(set, "doc = ?")
	args := append(t.keys(v), string(doc), t.id(v), account)
	res, err := q.ExecContext(ctx, "UPDATE "+t.name+" SET "+strings.Join(set, ", ")+" WHERE id = ? AND account_id = ?", args...)
	if err != nil {
		return fmt.Errorf("sqlstore: update %s: %w", t.kind, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return upstream.NotFound(t.kind, t.id(v))
	}
	keepDoc(q, t.name, t.id(v), doc)
	t.emitFor(q, account, v, updated)
	return nil
}

// deleteWhere deletes the documents of account matching a condition.
func (t table[T]) deleteWhere(ctx context.Context, q querier, account, cond string, args ...any) error {
	forgetDocs(q, t.name)
	if t.event != nil && bufOf(q) != nil {
		// RETURNING names what was deleted, for its events.
		rows, err := q.QueryContext(ctx, "DELETE FROM "+t.name+" WHERE account_id = ? AND ("+cond+") RETURNING doc", append([]any{account}, args...)...)
		if err != nil {
			return fmt.Errorf("sqlstore: delete %s: %w", t.kind, err)
		}
		gone, err := scanDocs[T](rows)
		if err != nil {
			return fmt.Errorf("sqlstore: delete %s: %w", t.kind, err)
		}
		for i := range gone {
			t.emitFor(q, account, &gone[i], deleted)
		}
		return nil
	}
	if _, err := q.ExecContext(ctx, "DELETE FROM "+t.name+" WHERE account_id = ? AND ("+cond+")", append([]any{account}, args...)...); err != nil {
		return fmt.Errorf("sqlstore: delete %s: %w", t.kind, err)
	}
	return nil
}

// scanStrings reads the one text column of rows (ids, mostly) and closes
// them.
func scanStrings(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// The tables.
var (
	goals = table[upstream.Goal]{name: "goals", kind: "goal", reg: upstream.GoalFields,
		cols: append([]string{"parent_id", "session_id", "owner_id", "restricted"}, goalFigureColumns...),
		keys: func(g *upstream.Goal) []any {
			return append([]any{g.ParentID, g.SessionID, g.OwnerID, flag(upstream.GoalRestricted(*g))}, goalFigureKeys(g)...)
		},
		id: func(g *upstream.Goal) string { return g.ID },
		own: []string{"id", "accountId", "sessionId", "parentId", "parentType", "parentGoalSessionId", "ownerId", "ownerIds",
			"private", "obfuscated"},
		event: func(g *upstream.Goal, v verb) upstream.Event {
			return upstream.Event{Type: eventType(v, upstream.EventGoalCreated, upstream.EventGoalUpdated, upstream.EventGoalDeleted),
				ItemID: g.ID, GoalID: g.ID, SessionID: g.SessionID}
		}}
	metrics = table[upstream.Metric]{name: "metrics", kind: "metric", reg: upstream.MetricFields,
		cols: []string{"goal_id", "session_id", "owner_id", "restricted", "figure_attainment"},
		keys: func(m *upstream.Metric) []any {
			return []any{m.GoalID, m.SessionID, m.OwnerID, flag(upstream.MetricRestricted(*m)), m.Attainment}
		},
		id:  func(m *upstream.Metric) string { return m.ID },
		own: []string{"id", "accountId", "goalId", "sessionId", "ownerId", "ownerIds"},
		event: func(m *upstream.Metric, v verb) upstream.Event {
			return upstream.Event{Type: eventType(v, upstream.EventMetricCreated, upstream.EventMetricUpdated, upstream.EventMetricDeleted),
				ItemID: m.ID, GoalID: m.GoalID, SessionID: m.SessionID}
		}}
	checkins = table[upstream.CheckIn]{name: "checkins", kind: "check-in", reg: upstream.CheckInFields,
		cols: []string{"metric_id", "goal_id"},
		keys: func(c *upstream.CheckIn) []any { return []any{c.MetricID, c.GoalID} },
		id:   func(c *upstream.CheckIn) string { return c.ID },
		own:  []string{"id", "accountId", "metricId", "goalId"}}
	tasks = table[upstream.Task]{name: "tasks", kind: "task", reg: upstream.TaskFields,
		cols: []string{"parent_id", "session_id", "owner_id"},
		keys: func(t *upstream.Task) []any { return []any{t.ParentID, t.SessionID, t.OwnerID} },
		id:   func(t *upstream.Task) string { return t.ID },
		event: func(t *upstream.Task, v verb) upstream.Event {
			return upstream.Event{Type: eventType(v, upstream.EventTaskCreated, upstream.EventTaskUpdated, upstream.EventTaskDeleted),
				ItemID: t.ID, GoalID: taskGoal(t), SessionID: t.SessionID}
		}}
	sessions = table[upstream.Session]{name: "sessions", kind: "session", reg: upstream.SessionFields,
		cols: []string{"parent_id"},
		keys: func(s *upstream.Session) []any { return []any{s.ParentID} },
		id:   func(s *upstream.Session) string { return s.ID },
		event: func(s *upstream.Session, v verb) upstream.Event {
			return upstream.Event{Type: eventType(v, upstream.EventSessionCreated, upstream.EventSessionUpdated, upstream.EventSessionDeleted),
				ItemID: s.ID, SessionID: s.ID}
		}}
	users = table[upstream.User]{name: "users", kind: "user", reg: upstream.UserFields,
		cols: []string{"email"},
		keys: func(u *upstream.User) []any { return []any{u.Email} },
		id:   func(u *upstream.User) string { return u.ID },
		own:  []string{"id", "accountId"}}
	teams = table[upstream.Team]{name: "teams", kind: "team", reg: upstream.TeamFields,
		cols: []string{"parent_id"},
		keys: func(t *upstream.Team) []any { return []any{t.ParentID} },
		id:   func(t *upstream.Team) string { return t.ID }}
)

// flag is a boolean key column's value: 1 or 0 (visibility.go, "restricted").
func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// taskGoal returns the goal of a task parented by a goal; the goal of a
// key result's task is found when the event is delivered.
func taskGoal(t *upstream.Task) string {
	if t.ParentType == "goal" {
		return t.ParentID
	}
	return ""
}

// eventType returns the event type of what.
func eventType(what verb, c, u, d upstream.EventType) upstream.EventType {
	switch what {
	case created:
		return c
	case updated:
		return u
	}
	return d
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// hiddenRows are conditions on a table's own rows (its columns unprefixed)
// that select, disjointly, the rows a source leaves out of the table, each
// with its arguments. A listing from such a source counts its matches as
// the table's less the hidden rows' (countHidingSQL): the table's count
// reads an index as an admin's does, and the hidden rows are found from
// their own indexes, instead of a decision for every row of the account.
type hiddenRows []sqlCond

// sqlCond is an SQL condition and its arguments.
type sqlCond struct {
	sql  string
	args []any
}

// countHidingSQL returns one statement (one snapshot) counting the rows of
// the table matching where (arguments filterArgs) less those of them that
// hidden selects.
func (t table[T]) countHidingSQL(hidden hiddenRows, where, account string, filterArgs []any) (string, []any) {
	var b strings.Builder
	b.WriteString("SELECT (SELECT count(*) FROM " + t.name + " WHERE account_id = ? AND (" + where + "))")
	args := append([]any{account}, filterArgs...)
	for _, h := range hidden {
		b.WriteString(" - (SELECT count(*) FROM " + t.name + " WHERE account_id = ? AND " + h.sql + " AND (" + where + "))")
		args = append(append(append(args, account), h.args...), filterArgs...)
	}
	return b.String(), args
}
