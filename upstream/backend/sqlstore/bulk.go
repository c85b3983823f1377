package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	fastjson "github.com/goccy/go-json"

	"github.com/okrgate/okrgate/upstream"
)

// bulkTx is an open Bulk transaction of one store.
type bulkTx struct {
	s  *Store
	q  querier
	pq preparedTx // q, running every statement text prepared once per batch
	// Goals whose paths (figures) and task counts are stale, per account:
	// they are brought up to date once, when fn returns.
	paths, tasks map[string]map[string]bool
	// The callers' subjects (roles, teams, grants), derived once per batch.
	subjects map[subjectKey]*upstream.Subject
	// broken is set when a statement of an earlier write failed on the
	// server after that write returned (PostgreSQL, inBulk): the batch
	// cannot go on.
	broken error
}

// subject returns the caller's authorization subject as the batch first
// derived it: a batch decides every write with the roles, teams and
// grants the caller had at its first write.
func (b *bulkTx) subject(ctx context.Context, q querier, c upstream.Caller) (*upstream.Subject, error) {
	key := subjectKey{account: c.AccountID, user: c.UserID, roles: strings.Join(c.Roles, ",")}
	if sub, ok := b.subjects[key]; ok {
		return sub, nil
	}
	sub, err := b.s.deriveSubject(ctx, q, c)
	if err != nil {
		return nil, err
	}
	if b.subjects == nil {
		b.subjects = map[subjectKey]*upstream.Subject{}
	}
	b.subjects[key] = sub
	return sub, nil
}

// mark records ids of account in set.
func (b *bulkTx) mark(account string, set map[string]map[string]bool, ids []string) {
	for _, id := range ids {
		if id == "" {
			continue
		}
		if set[account] == nil {
			set[account] = map[string]bool{}
		}
		set[account][id] = true
	}
}

// flush recomputes what the writes of the batch left stale: the paths of
// the goals they changed, folded together (an ancestor shared by many is
// recomputed once), and task counts.
func (b *bulkTx) flush(ctx context.Context) error {
	s, q := b.s, b.q
	for _, account := range slices.Sorted(maps.Keys(b.tasks)) {
		if err := s.refreshTaskCounts(ctx, q, account, slices.Sorted(maps.Keys(b.tasks[account]))...); err != nil {
			return err
		}
	}
	for _, account := range slices.Sorted(maps.Keys(b.paths)) {
		if err := s.recompute(ctx, q, account, slices.Sorted(maps.Keys(b.paths[account]))...); err != nil {
			return err
		}
	}
	return nil
}

// Bulk runs fn in one write transaction: every write fn makes through the
// view of the store it is given joins that transaction, each under a
// savepoint of its own, so a write that fails leaves nothing behind and fn
// may go on. The writes are checked by the same rules as one by one; the
// derived figures of goals (attainments, aggregates, counts) are brought up
// to date once, when fn returns, folding the paths of all changed goals
// together, so what fn reads back of them inside the batch may be stale.
// Authorization is decided with the roles, teams and grants the caller had
// at the batch's first write. fn returning an error rolls everything back.
// Seeding uses it; the writer
// connection is held for the whole of fn, so keep batches short where a
// server runs on the same file.
func (s *Store) Bulk(ctx context.Context, fn func(batch *Store) error) error {
	if s.bulk != nil {
		return fn(s) // already inside one
	}
	writes := 0
	err := s.tx(ctx, func(q querier) error {
		b := &bulkTx{s: s, q: q, paths: map[string]map[string]bool{}, tasks: map[string]map[string]bool{}}
		pq, ok := s.prepared(q).(preparedTx)
		if !ok {
			return fmt.Errorf("sqlstore: bulk: not a write transaction")
		}
		pq.batch = map[string]*sql.Stmt{}
		pq.docs = &batchDocs{docs: map[string]map[string][]byte{}, assignees: map[string]upstream.Assignee{}}
		defer pq.closeBatch()
		b.pq = pq
		v := *s
		v.bulk = b
		if err := fn(&v); err != nil {
			return err
		}
		if b.broken != nil {
			return b.broken
		}
		if p := pq.count.pipe; p != nil {
			writes = p.write
		}
		return b.flush(ctx)
	})
	if err == nil && writes > 0 {
		s.analyzeAfterBulk(ctx, writes)
	}
	return err
}

// bulkTables are the tables Bulk batches fill (analyzeAfterBulk).
const bulkTables = "goals, metrics, tasks, checkins, goal_subtrees, events"

// minAnalyze is the number of batch writes after which the first ANALYZE
// runs.
const minAnalyze = 1000

// analyzeAfterBulk refreshes PostgreSQL's statistics of the tables Bulk
// batches fill once the writes of the batches committed since the last
// refresh outnumber those before it (after 1,000, 2,000, 4,000, ...
// writes): a load of n writes analyzes about log2(n) times. The write
// path's statements are prepared once per connection, and PostgreSQL plans
// them on the statistics it has; those of tables a load has just filled
// are of nearly empty tables (autovacuum's analyze comes later), and a
// plan made on them scans the whole account — a 3,000-objective seed spent
// 12 of its 20 s of statements in one facts statement planned so. ANALYZE
// invalidates those plans. Its failure (a role that does not own the
// tables) is not the batch's, which has committed: it is ignored.
func (s *Store) analyzeAfterBulk(ctx context.Context, writes int) {
	if s.pg == nil {
		return // SQLite plans each statement with the sizes it finds
	}
	n := s.pg.bulkWrites.Add(int64(writes))
	last := s.pg.analyzedAt.Load()
	if n-last < max(last, minAnalyze) || !s.pg.analyzedAt.CompareAndSwap(last, n) {
		return
	}
	_, _ = s.w.ExecContext(ctx, "ANALYZE "+bulkTables)
}

// inBulk runs fn inside the view's Bulk transaction under a savepoint, and
// reports false when the view is not one of a batch.
//
// One name serves every savepoint: writes do not nest, and constant texts
// stay prepared for the whole batch. On SQLite the savepoint is taken and
// released at once. On PostgreSQL a write waits for no round trip of its
// own: the statements whose answers it does not need go with the next round
// trip of the batch — a later write's read, or the COMMIT — so a write
// whose facts the batch already holds (a key result of a goal the batch
// created) costs no round trip, and it takes a savepoint only if it sends
// something before it returns (pipeline.lazySavepoint): a write that sent
// nothing and fails is undone by dropping what it queued. A write refused
// by the rules leaves nothing behind and the batch goes on; a statement
// that fails on the server after its write returned fails the batch
// (broken): every later write, and Bulk, return that error, and the whole
// batch rolls back.
func (s *Store) inBulk(ctx context.Context, fn func(q querier) error) (bool, error) {
	b := s.bulk
	if b == nil {
		return false, nil
	}
	if b.broken != nil {
		return true, b.broken
	}
	p := b.pq.count.pipe
	if p == nil {
		return true, s.bulkWriteSQLite(ctx, b, fn)
	}
	p.write++
	base := len(p.pending)
	p.lazySavepoint("bulk_write")
	defer func() { p.savepoint = "" }()
	mark := b.pq.count.ev.mark()
	err := fn(b.pq)
	if err == nil {
		if p.savepointSent {
			return true, s.queue(ctx, b.pq, stmt{sql: "RELEASE bulk_write"})
		}
		return true, nil
	}
	b.pq.count.ev.rollback(mark) // the write's events go with it
	if p.err != nil && p.failedWrite != p.write {
		b.broken = fmt.Errorf("sqlstore: a write of the batch failed: %w", p.err)
		return true, b.broken
	}
	if !p.savepointSent {
		p.pending = p.pending[:base] // nothing of it was sent
		return true, err
	}
	p.pending = nil // after its first round trip, all that is pending is its own
	if rerr := s.rollbackTo(ctx, b.pq, "bulk_write", err, p.err != nil); rerr != nil {
		return true, fmt.Errorf("sqlstore: roll back to savepoint: %w (after %w)", rerr, err)
	}
	return true, err
}

// bulkWriteSQLite is inBulk on SQLite, where every statement runs at once:
// the write runs under a savepoint, released or rolled back to when it
// returns.
func (s *Store) bulkWriteSQLite(ctx context.Context, b *bulkTx, fn func(q querier) error) error {
	if err := s.run(ctx, b.pq, stmt{sql: "SAVEPOINT bulk_write"}); err != nil {
		return fmt.Errorf("sqlstore: savepoint: %w", err)
	}
	mark := b.pq.count.ev.mark()
	if err := fn(b.pq); err != nil {
		b.pq.count.ev.rollback(mark) // the savepoint's events go with it
		if rerr := s.run(ctx, b.pq, stmt{sql: "ROLLBACK TO bulk_write"}, stmt{sql: "RELEASE bulk_write"}); rerr != nil {
			return fmt.Errorf("sqlstore: roll back to savepoint: %w (after %w)", rerr, err)
		}
		return err
	}
	if err := s.run(ctx, b.pq, stmt{sql: "RELEASE bulk_write"}); err != nil {
		return fmt.Errorf("sqlstore: release savepoint: %w", err)
	}
	return nil
}

// batchDocs are documents a Bulk batch has read or written, so that its
// writes do not read them again: goals, sessions and key results by id (as documents,
// decoded afresh for every use), and the users and teams that exist as
// owners. The batch holds the writer (SQLite) or its account's lock
// (PostgreSQL), so only its own writes change them, and every write of a
// cached table through the table's methods updates or drops the cache. A
// goal's derived figures are brought up to date when the batch ends
// (Bulk), so within it they are as stale as a read would find them.
type batchDocs struct {
	docs      map[string]map[string][]byte // table → id → document
	assignees map[string]upstream.Assignee
}

// cachedTables are the tables whose documents a batch keeps.
var cachedTables = map[string]bool{"goals": true, "sessions": true, "metrics": true}

// batchDocsOf returns the documents of q's Bulk batch, or nil.
func batchDocsOf(q querier) *batchDocs {
	if p, ok := q.(preparedTx); ok {
		return p.docs
	}
	return nil
}

// cachedDoc decodes the document id of table that q's batch holds, with
// the decoder of large reads (scanDocsN): a seed decodes a goal, its
// session and key results again for each write under it, a quarter of its
// process's CPU with encoding/json.
func cachedDoc[T any](q querier, table, id string) (T, bool) {
	var v T
	b := batchDocsOf(q)
	if b == nil {
		return v, false
	}
	raw, ok := b.docs[table][id]
	if !ok || fastjson.Unmarshal(raw, &v) != nil {
		return v, false
	}
	return v, true
}

// keepDoc records the document id of table, as read or written, in q's
// batch.
func keepDoc(q querier, table, id string, doc []byte) {
	b := batchDocsOf(q)
	if b == nil {
		return
	}
	switch {
	case cachedTables[table]:
		if b.docs[table] == nil {
			b.docs[table] = map[string][]byte{}
		}
		b.docs[table][id] = doc
	case table == "users" || table == "teams":
		clear(b.assignees)
	}
}

// forgetDocs drops what q's batch holds of table, after a write that
// changed rows of it by condition.
func forgetDocs(q querier, table string) {
	if b := batchDocsOf(q); b != nil {
		delete(b.docs, table)
		if table == "users" || table == "teams" {
			clear(b.assignees)
		}
	}
}
