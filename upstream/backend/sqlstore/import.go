package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountfile"
)

// ImportOptions says how an import treats an account the store already has.
type ImportOptions struct {
	// Replace deletes the account's rows before the file's are written,
	// in the same transaction; without it an existing account is refused.
	Replace bool
	// Progress, if set, is called now and then with the rows read.
	Progress func(rows int)
	// KeepRecomputed keeps the figures recomputed here where they differ
	// from the file's, and counts them (ImportReport.Differed), instead of
	// refusing the import: for an account read through the REST API from
	// a server whose figures may be computed otherwise.
	KeepRecomputed bool
}

// ImportReport is what an import did.
type ImportReport struct {
	Rows map[string]int // rows written, per table
	// Recomputed is how many objectives' figures were recomputed and found
	// equal to the file's; Differed how many differed and were kept as
	// recomputed (ImportOptions.KeepRecomputed).
	Recomputed, Differed int
	// Omitted is what the file says it left out (its header).
	Omitted []string
}

// ErrAccountExists is the error for an import of an account the store has,
// without ImportOptions.Replace.
var ErrAccountExists = errors.New("the account exists in this database (import --replace replaces it)")

// ErrBadFile wraps what is wrong with an account file's content: a row of
// another account, a duplicated row, an id of another account.
var ErrBadFile = errors.New("the file cannot be imported")

// insertBatch is how many rows one INSERT writes.
const insertBatch = 100

// importer holds one import's state.
type importer struct {
	s       *Store
	q       counted
	account string
	tables  map[string]dbTable // the target's movable tables
	cols    map[string][]string
	// keys are the primary keys seen (a 64-bit hash of table and key), to
	// refuse a duplicated line with the line it repeats; ids the ids of
	// every row.
	keys  map[uint64]int
	ids   map[string]map[string]int // per table, each row's id and line
	refs  map[string]int            // ids the rows name (parent_id, goal_id, ...), with a line naming each
	goals map[string][32]byte
	// head is the account's last event position here (0 for a new
	// account): moved webhooks deliver what happens after the import.
	head    int64
	keep    bool // ImportOptions.KeepRecomputed
	pending map[string][][]any
	first   map[string]int // the line of each table's first queued row
	rows    map[string]int
	report  ImportReport
}

// ImportAccount writes the account in r into the store, in one transaction:
// either all of it is visible afterwards or none. It refuses a file of a
// newer schema (a column this database does not have), rows of another
// account, duplicated rows, and ids that belong to another account here;
// then it recomputes every objective's figures from the imported key
// results and refuses the import unless they equal the file's. Errors
// about the file are *accountfile.LineError where a line is to blame.
func (s *Store) ImportAccount(ctx context.Context, r *accountfile.Reader, opts ImportOptions) (ImportReport, error) {
	h := r.Header()
	tx, err := s.w.BeginTx(ctx, s.pg.txOptions())
	if err != nil {
		return ImportReport{}, fmt.Errorf("sqlstore: import: begin: %w", err)
	}
	defer tx.Rollback()
	q := counted{q: tx, d: s.d, n: &s.queries, rt: &s.roundTrips, tx: true, ev: &eventBuf{}, trace: s.trace, facts: &txFacts{}}
	all, err := s.catalog(ctx, q)
	if err != nil {
		return ImportReport{}, err
	}
	im := &importer{s: s, q: q, account: h.Account, tables: map[string]dbTable{}, cols: h.Tables,
		keys: map[uint64]int{}, ids: map[string]map[string]int{}, refs: map[string]int{}, goals: map[string][32]byte{},
		pending: map[string][][]any{}, first: map[string]int{}, rows: map[string]int{}, keep: opts.KeepRecomputed}
	im.report.Omitted = h.Omitted
	for _, t := range movable(all, true) {
		im.tables[t.name] = t
	}
	if err := im.checkHeader(); err != nil {
		return ImportReport{}, err
	}
	if err := im.clear(ctx, all, opts.Replace); err != nil {
		return ImportReport{}, err
	}
	last, n := "", 0
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return ImportReport{}, err
		}
		if row.Table != last {
			// Rows come table by table, each after the tables it references
			// (the export's order): what is queued goes in before the next table.
			if err := im.flushAll(ctx); err != nil {
				return ImportReport{}, err
			}
			last = row.Table
		}
		if err := im.add(ctx, row); err != nil {
			return ImportReport{}, err
		}
		if n++; opts.Progress != nil && n%10000 == 0 {
			opts.Progress(n)
		}
	}
	if err := im.flushAll(ctx); err != nil {
		return ImportReport{}, err
	}
	if im.rows["accounts"] != 1 {
		return ImportReport{}, fmt.Errorf("%w: it holds no row of account %s in accounts", ErrBadFile, h.Account)
	}
	if err := im.checkForeignIDs(ctx); err != nil {
		return ImportReport{}, err
	}
	if err := restrictedFromDocs(ctx, im.q, im.account, goals, upstream.GoalRestricted); err != nil {
		return ImportReport{}, err
	}
	if err := restrictedFromDocs(ctx, im.q, im.account, metrics, upstream.MetricRestricted); err != nil {
		return ImportReport{}, err
	}
	if err := im.recompute(ctx); err != nil {
		return ImportReport{}, err
	}
	if err := tx.Commit(); err != nil {
		return ImportReport{}, fmt.Errorf("sqlstore: import: commit: %w", err)
	}
	im.report.Rows = im.rows
	return im.report, nil
}

// checkHeader refuses a file whose tables or columns this database does not
// have (a newer schema's file) or that are not an account's data.
func (im *importer) checkHeader() error {
	for _, name := range slices.Sorted(maps.Keys(im.cols)) {
		t, ok := im.tables[name]
		if !ok {
			return &accountfile.LineError{Line: 1, Err: fmt.Errorf("%w: table %s is not one this okrgate moves (a file of a newer version? upgrade okrgate first)", ErrBadFile, name)}
		}
		for _, c := range im.cols[name] {
			if !t.has(c) {
				return &accountfile.LineError{Line: 1, Err: fmt.Errorf("%w: column %s.%s does not exist in this database (a file of a newer version? upgrade okrgate first)", ErrBadFile, name, c)}
			}
		}
	}
	if len(im.cols["accounts"]) == 0 {
		return &accountfile.LineError{Line: 1, Err: fmt.Errorf("%w: the header lists no accounts table", ErrBadFile)}
	}
	return nil
}

// clear refuses an account that exists, or with replace deletes its rows
// (tokens too: a replaced account keeps only the file's) and what the
// server kept of it, except its event log, whose positions go on.
func (im *importer) clear(ctx context.Context, all []dbTable, replace bool) error {
	var n int
	if err := im.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE id = ?`, im.account).Scan(&n); err != nil {
		return fmt.Errorf("sqlstore: import: %w", err)
	}
	if n == 0 {
		return nil
	}
	if err := im.q.QueryRowContext(ctx, `SELECT COALESCE(MAX(position), 0) FROM events WHERE account_id = ?`, im.account).Scan(&im.head); err != nil {
		return fmt.Errorf("sqlstore: import: %w", err)
	}
	if !replace {
		return fmt.Errorf("sqlstore: import %s: %w", im.account, ErrAccountExists)
	}
	for _, t := range slices.Backward(all) {
		var stmt string
		switch {
		case t.name == "events":
			continue
		case t.name == "accounts":
			stmt = `DELETE FROM accounts WHERE id = ?`
		case t.has("account_id"):
			stmt = `DELETE FROM ` + quoteIdent(t.name) + ` WHERE account_id = ?`
		default:
			continue
		}
		if _, err := im.q.ExecContext(ctx, stmt, im.account); err != nil {
			return fmt.Errorf("sqlstore: import: replace %s: %w", t.name, err)
		}
	}
	return nil
}

// add checks one row and queues it for insertion.
func (im *importer) add(ctx context.Context, row accountfile.Row) error {
	cols := im.cols[row.Table]
	t := im.tables[row.Table]
	bad := func(format string, args ...any) error {
		return &accountfile.LineError{Line: row.Line, Err: fmt.Errorf("%w: "+format, append([]any{ErrBadFile}, args...)...)}
	}
	vals := make([]any, len(cols))
	byName := make(map[string]any, len(cols))
	for i, c := range cols {
		col, _ := t.col(c)
		v, err := storeValue(col, row.Values[i])
		if err != nil {
			return bad("%s.%s: %v", row.Table, c, err)
		}
		vals[i], byName[c] = v, v
	}
	if row.Table == "webhooks" {
		im.webhook(cols, vals)
	}
	owner := byName["account_id"]
	if row.Table == "accounts" {
		owner = byName["id"]
	}
	if owner != im.account {
		return bad("a row of %s belongs to account %v, the file to %s", row.Table, owner, im.account)
	}
	if len(t.pk) > 0 {
		key := make([]string, len(t.pk))
		for i, c := range t.pk {
			key[i] = fmt.Sprint(byName[c])
		}
		h := fnv.New64a()
		h.Write([]byte(row.Table + "\x00" + strings.Join(key, "\x00")))
		k := h.Sum64()
		if prev, ok := im.keys[k]; ok {
			return bad("a row of %s repeats line %d (same key %s)", row.Table, prev, strings.Join(key, ", "))
		}
		im.keys[k] = row.Line
	}
	if id, ok := byName["id"].(string); ok && id != "" && row.Table != "accounts" {
		if im.ids[row.Table] == nil {
			im.ids[row.Table] = map[string]int{}
		}
		im.ids[row.Table][id] = row.Line
	}
	for _, c := range cols {
		if v, ok := byName[c].(string); ok && v != "" && isReference(c) {
			if _, seen := im.refs[v]; !seen {
				im.refs[v] = row.Line
			}
		}
	}
	if doc, ok := byName["doc"].(string); ok {
		var d struct {
			AccountID *string `json:"accountId"`
		}
		if err := json.Unmarshal([]byte(doc), &d); err != nil {
			return bad("%s.doc is not a JSON document: %v", row.Table, err)
		}
		if d.AccountID != nil && *d.AccountID != im.account && *d.AccountID != "" {
			return bad("a document of %s names account %s, the file is of %s", row.Table, *d.AccountID, im.account)
		}
		if row.Table == "goals" {
			h, err := canonicalDoc(doc)
			if err != nil {
				return bad("goals.doc: %v", err)
			}
			im.goals[byName["id"].(string)] = h
		}
	}
	if len(im.pending[row.Table]) == 0 {
		im.first[row.Table] = row.Line
	}
	im.pending[row.Table] = append(im.pending[row.Table], vals)
	if len(im.pending[row.Table]) >= insertBatch {
		return im.flush(ctx, row.Table)
	}
	return nil
}

// isReference says whether a column names another row by its id.
// item_id is left out: a tag may name an item kept elsewhere (an insight).
func isReference(col string) bool {
	return strings.HasSuffix(col, "_id") && col != "account_id" && col != "item_id"
}

// storeValue converts a file value to what the target column takes.
func storeValue(c column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.kind {
	case "int":
		switch v := v.(type) {
		case json.Number:
			return strconv.ParseInt(string(v), 10, 64)
		case bool:
			if v {
				return int64(1), nil
			}
			return int64(0), nil
		}
	case "real":
		if n, ok := v.(json.Number); ok {
			return strconv.ParseFloat(string(n), 64)
		}
	case "bool":
		switch v := v.(type) {
		case bool:
			return v, nil
		case json.Number:
			return v != "0", nil
		}
	case "blob":
		if b, ok := v.([]byte); ok {
			return b, nil
		}
	default: // text, json
		if s, ok := v.(string); ok {
			return s, nil
		}
	}
	return nil, fmt.Errorf("a %T where the column holds %s", v, c.kind)
}

func (im *importer) flushAll(ctx context.Context) error {
	for _, t := range slices.Sorted(maps.Keys(im.pending)) {
		if err := im.flush(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// flush inserts the rows of table queued so far, in one statement.
func (im *importer) flush(ctx context.Context, table string) error {
	rows := im.pending[table]
	if len(rows) == 0 {
		return nil
	}
	cols := im.cols[table]
	var b strings.Builder
	b.WriteString("INSERT INTO " + quoteIdent(table) + " (" + strings.Join(mapQuote(cols), ", ") + ") VALUES ")
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	args := make([]any, 0, len(rows)*len(cols))
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(one)
		args = append(args, r...)
	}
	if _, err := im.q.ExecContext(ctx, b.String(), args...); err != nil {
		from := im.first[table]
		return &accountfile.LineError{Line: from, Err: fmt.Errorf("%w: the rows of %s from this line (%d rows) are refused by the database: %v", ErrBadFile, table, len(rows), err)}
	}
	im.rows[table] += len(rows)
	im.pending[table] = rows[:0]
	return nil
}

// webhook adapts a webhook's row to its new store: it delivers events from
// the account's position here on, and one whose secret the file left out
// arrives inactive (its deliveries could not be signed).
func (im *importer) webhook(cols []string, vals []any) {
	secret := ""
	if i := slices.Index(cols, "secret"); i >= 0 {
		secret, _ = vals[i].(string)
	}
	for i, c := range cols {
		switch {
		case c == "last_position":
			vals[i] = im.head
		case c == "active" && secret == "":
			vals[i] = int64(0)
		}
	}
}

// idCheckBatch is how many ids one statement of checkForeignIDs looks up.
const idCheckBatch = 2000

// checkForeignIDs refuses a file that names rows of another account of
// this database: a row whose id another account's row of its table has, or
// a reference (parent_id, goal_id, ...) to a row that is not in the file
// but is another account's. A reference to a row that exists nowhere is
// kept, as the source kept it (a deleted owner, say).
func (im *importer) checkForeignIDs(ctx context.Context) error {
	var others int
	if err := im.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE id <> ?`, im.account).Scan(&others); err != nil {
		return fmt.Errorf("sqlstore: import: %w", err)
	}
	if others == 0 {
		return nil // nobody else's ids to name
	}
	unresolved := map[string]int{}
	for id, line := range im.refs {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(im.ids)), func(t string) bool { _, ok := im.ids[t][id]; return ok }) {
			unresolved[id] = line
		}
	}
	for _, name := range slices.Sorted(maps.Keys(im.tables)) {
		t := im.tables[name]
		if !t.has("id") || name == "accounts" {
			continue
		}
		check := maps.Clone(im.ids[name])
		if check == nil {
			check = map[string]int{}
		}
		maps.Copy(check, unresolved)
		ids := slices.Sorted(maps.Keys(check))
		for len(ids) > 0 {
			n := min(len(ids), idCheckBatch)
			batch := ids[:n]
			ids = ids[n:]
			stmt := `SELECT id FROM ` + quoteIdent(name) + ` WHERE account_id <> ? AND id IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(batch)), ", ") + `) LIMIT 1`
			args := []any{im.account}
			for _, id := range batch {
				args = append(args, id)
			}
			var found string
			err := im.q.QueryRowContext(ctx, stmt, args...).Scan(&found)
			if isNoRows(err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("sqlstore: import: check ids of %s: %w", name, err)
			}
			return &accountfile.LineError{Line: check[found], Err: fmt.Errorf("%w: %s is the id of another account's row of %s in this database", ErrBadFile, found, name)}
		}
	}
	return nil
}

// restrictedFromDocs sets the restricted column of t's rows of account as
// a write would (the table's keys: upstream.GoalRestricted,
// MetricRestricted), from the documents rather than the file's column: a
// file of an older version has none, and a row left at 0 would be listed
// to callers its document hides it from.
func restrictedFromDocs[T any](ctx context.Context, q querier, account string, t table[T], restricted func(T) bool) error {
	items, err := t.where(ctx, q, account, "1 = 1")
	if err != nil {
		return fmt.Errorf("sqlstore: import: %w", err)
	}
	ids := []string{}
	for i := range items {
		if restricted(items[i]) {
			ids = append(ids, t.id(&items[i]))
		}
	}
	if _, err := q.ExecContext(ctx, "UPDATE "+t.name+" SET restricted = CASE WHEN id IN "+idList+" THEN 1 ELSE 0 END WHERE account_id = ?",
		idsParam(ids), account); err != nil {
		return fmt.Errorf("sqlstore: import: restricted %s: %w", t.name, err)
	}
	return nil
}

// recompute recomputes the figures of every imported objective from its key
// results and children, as a check-in would, and refuses the import unless
// each objective's document is what the file says.
func (im *importer) recompute(ctx context.Context) error {
	if len(im.goals) == 0 {
		return nil
	}
	if im.s.pg != nil {
		// Fresh rows have no planner statistics yet: without them the
		// recomputation's statements plan as if the tables were empty. Best
		// effort, under a savepoint: a cluster that refuses ANALYZE in a
		// transaction (Citus may) recomputes with the plans it has.
		if _, err := im.q.ExecContext(ctx, "SAVEPOINT import_analyze"); err != nil {
			return fmt.Errorf("sqlstore: import: %w", err)
		}
		release := "RELEASE SAVEPOINT import_analyze"
		if _, err := im.q.ExecContext(ctx, "ANALYZE "+bulkTables); err != nil {
			release = "ROLLBACK TO SAVEPOINT import_analyze"
		}
		if _, err := im.q.ExecContext(ctx, release); err != nil {
			return fmt.Errorf("sqlstore: import: %w", err)
		}
	}
	// The figure columns as the documents say (a file of an older version
	// has none), for the recomputation to compare with.
	for _, stmt := range figureColumnsFromDocs(dialectOf(im.q)) {
		if _, err := im.q.ExecContext(ctx, stmt, im.account); err != nil {
			return fmt.Errorf("sqlstore: import: figure columns: %w", err)
		}
	}
	// Every objective of the account at once: the set is closed under
	// descent, so one recomputation covers every tree.
	rows, err := im.q.QueryContext(ctx, goalRowsSQL, im.account, idsParam(slices.Sorted(maps.Keys(im.goals))))
	if err != nil {
		return fmt.Errorf("sqlstore: import: load objectives: %w", err)
	}
	var gs []goalRow
	for rows.Next() {
		var g goalRow
		if err := rows.Scan(g.dests()...); err != nil {
			rows.Close()
			return fmt.Errorf("sqlstore: import: load objectives: %w", err)
		}
		gs = append(gs, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlstore: import: load objectives: %w", err)
	}
	if err := im.s.recomputeGoals(ctx, im.q, im.account, gs); err != nil {
		return fmt.Errorf("sqlstore: import: recompute: %w", err)
	}
	doc := "doc"
	if im.s.pg != nil {
		doc = "doc::text"
	}
	rows, err = im.q.QueryContext(ctx, `SELECT id, `+doc+` FROM goals WHERE account_id = ? ORDER BY id`, im.account)
	if err != nil {
		return fmt.Errorf("sqlstore: import: check figures: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, d string
		if err := rows.Scan(&id, &d); err != nil {
			return fmt.Errorf("sqlstore: import: check figures: %w", err)
		}
		h, err := canonicalDoc(d)
		if err != nil {
			return fmt.Errorf("sqlstore: import: check figures of %s: %w", id, err)
		}
		if h != im.goals[id] && im.keep {
			im.report.Differed++
			continue
		}
		if h != im.goals[id] {
			return fmt.Errorf("%w: objective %s's figures recomputed from its key results and children differ from the file's (line %d was edited, or the source's figures were stale)",
				ErrBadFile, id, im.ids["goals"][id])
		}
		im.report.Recomputed++
	}
	return rows.Err()
}
