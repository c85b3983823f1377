package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// stmtCache holds the statements of the write path, prepared once on the
// writer connection when the store opens. modernc.org/sqlite prepares every
// statement afresh when it is run from text: for the short queries that
// recompute a path, parsing and planning cost more than running them
// (measured: SQLite's parser took 22% of the CPU time of concurrent
// check-ins; with the facts statements of a check-in left out of the
// cache, preparing took 30% of a check-in's CPU time). They are prepared up front because the writer pool has one
// connection: preparing later, while a transaction holds it, would wait for
// that very transaction.
type stmtCache struct {
	m map[string]*sql.Stmt // read-only after Open
	// r holds readPathSQL prepared on the reader pool (database/sql
	// prepares each on a connection when first run there).
	r map[string]*sql.Stmt
}

// readPathSQL are the reads prepared when the store opens: those every
// request runs, authenticating its token (TestAuthenticatePrepared; run
// from their text they were 9% of a check-in's CPU time).
var readPathSQL = []string{tokenAccountSQL, tokenFactsSQL}

// prepareReadPath prepares readPathSQL on the reader pool.
func (s *Store) prepareReadPath(ctx context.Context) error {
	s.stmts.r = make(map[string]*sql.Stmt, len(readPathSQL))
	for _, q := range readPathSQL {
		st, err := s.r.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("sqlstore: prepare: %w", err)
		}
		s.stmts.r[q] = st
	}
	return nil
}

// readPrepared returns the querier for reads that runs the statements in
// readPathSQL prepared on SQLite, and others from their text.
func (s *Store) readPrepared() querier {
	q := s.read()
	if s.pg != nil {
		return q // pgx prepares and caches statements itself
	}
	return preparedTx{s: s, count: q.(counted)}
}

// writePathSQL are the statements prepared when the store opens: those
// of path recomputation, every statement of a check-in (TestCheckInPrepared),
// the facts of goal, key-result and task writes, and the savepoints of a
// group (grouplocal.go).
var writePathSQL = []string{pathFactsSQL, attainmentsSQL, taskCountsSQL, subtreesSQL, putFiguresSQL, putSubtreesSQL, treeSQL, goalRowsSQL,
	metricFactsSQL(sqliteDialect{}), subjectSQL(sqliteDialect{}), metricPathFactsSQL, itemFactsSQL(sqliteDialect{}),
	updateSQL(metrics), updateSQL(goals), updateSQL(tasks), insertCheckInSQL, appendEventsSQL,
	savepointSQL, releaseSQL, rollbackToSQL}

// prepareWritePath prepares writePathSQL on the writer connection.
func (s *Store) prepareWritePath(ctx context.Context) error {
	s.stmts.m = make(map[string]*sql.Stmt, len(writePathSQL))
	for _, q := range writePathSQL {
		st, err := s.w.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("sqlstore: prepare: %w", err)
		}
		s.stmts.m[q] = st
	}
	return nil
}

// prepared returns a querier that runs the statements of q's write
// transaction that are in writePathSQL as prepared statements, and others
// from their text. Outside a write transaction it returns q.
func (s *Store) prepared(q querier) querier {
	c, ok := q.(counted)
	if !ok || !c.tx {
		return q
	}
	tx, _ := c.q.(*sql.Tx)
	if tx == nil && s.pg == nil {
		return q
	}
	return preparedTx{s: s, tx: tx, count: c} // on PostgreSQL, tx is nil: pgx prepares
}

// preparedTx is a write transaction that runs the statements it has
// prepared, or, with no transaction on SQLite, the reader pool running
// readPathSQL prepared (readPrepared).
type preparedTx struct {
	s     *Store
	tx    *sql.Tx
	count counted
	// batch, when not nil, holds statements prepared on the transaction
	// for a Bulk batch: every text, up to maxBatchStmts, is prepared on
	// first use and reused until the batch ends.
	batch map[string]*sql.Stmt
	// docs, in a Bulk batch, are the documents it read or wrote (bulk.go).
	docs *batchDocs
}

// maxBatchStmts bounds the statements a batch keeps prepared, so SQL built
// at run time cannot grow it without end.
const maxBatchStmts = 512

// stmt returns the prepared statement for query, bound to the transaction,
// or nil when it is to run from its text.
func (p preparedTx) stmt(ctx context.Context, query string) *sql.Stmt {
	if p.s.pg != nil {
		return nil // pgx prepares and caches statements itself
	}
	if p.tx == nil { // a read (readPrepared)
		return p.s.stmts.r[query]
	}
	if st := p.s.stmts.m[query]; st != nil {
		return p.tx.StmtContext(ctx, st)
	}
	if p.batch == nil {
		return nil
	}
	if st := p.batch[query]; st != nil {
		return st
	}
	if len(p.batch) >= maxBatchStmts {
		return nil
	}
	st, err := p.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil // running the text reports the error
	}
	p.batch[query] = st
	return st
}

// closeBatch closes the statements prepared for a batch.
func (p preparedTx) closeBatch() {
	for _, st := range p.batch {
		st.Close()
	}
}

func (p preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st := p.stmt(ctx, query)
	if st == nil {
		return p.count.ExecContext(ctx, query, args...)
	}
	p.count.count(query, args)
	ctx, span := statement(ctx, query)
	res, err := st.ExecContext(ctx, args...)
	endStatement(span, err)
	return res, err
}

func (p preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st := p.stmt(ctx, query)
	if st == nil {
		return p.count.QueryContext(ctx, query, args...)
	}
	p.count.count(query, args)
	ctx, span := statement(ctx, query)
	rows, err := st.QueryContext(ctx, args...)
	endStatement(span, err)
	return rows, err
}

func (p preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st := p.stmt(ctx, query)
	if st == nil {
		return p.count.QueryRowContext(ctx, query, args...)
	}
	p.count.count(query, args)
	ctx, span := statement(ctx, query)
	row := st.QueryRowContext(ctx, args...)
	endStatement(span, row.Err())
	return row
}
