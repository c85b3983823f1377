package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// The write path's round trips. On SQLite a statement is a call into the
// same process, so a write runs its statements one by one. On PostgreSQL
// each is a round trip to another process (a quarter to half a millisecond
// on a busy machine, docs/benchmarks/sqlite-postgres.md), and the account's row lock is held
// across all of them, so a write sends what it can together: the statements
// of a batch (stmt) go in one pgx batch, one round trip, and statements that
// return nothing the write needs (queue) wait for the next round trip —
// BEGIN and the account lock go with the first, the write's own statements,
// its events and COMMIT with the last. docs/decisions/writes.md ("A write reads
// each fact once").

// stmt is one statement of a batch: an exec when rows is nil, else a query
// whose rows are passed to rows one by one (scan fills dest from the row).
type stmt struct {
	sql  string
	args []any
	rows func(scan func(dest ...any) error) error
	// commit marks the COMMIT of a write: a round trip, not counted as a
	// statement (BEGIN is; the access log has always counted so).
	commit bool
	// write is the pipeline's write (pipeline.write) that queued the
	// statement, so that a failure sent late is laid at the right door.
	write int
}

// pipeline is a PostgreSQL write transaction: its connection, on which
// BEGIN is sent as a statement (database/sql's Tx would send it alone),
// and the statements that wait for its next round trip.
type pipeline struct {
	s       *Store
	conn    *sql.Conn
	pending []stmt
	begun   bool // BEGIN has been sent
	sends   int  // round trips sent (a write of a group knows what it sent)
	// write numbers the writes of a transaction that holds several (a
	// Bulk batch); failedWrite is the write whose statement failed last.
	write, failedWrite int
	// savepoint, when set, is the savepoint the current write needs only
	// if it sends anything before it ends: the next round trip places
	// SAVEPOINT at savepointAt, before the write's first statement
	// (lazySavepoint). A write that sends nothing needs none: what it
	// queued is dropped if it fails.
	savepoint     string
	savepointAt   int
	savepointSent bool
	// err is the first failure of statements sent ahead of a statement run
	// through database/sql (whose *sql.Row cannot carry it); the write
	// fails with it.
	err error
}

// pipeOf returns the pipeline of q's write transaction, or nil (SQLite, or
// outside a write).
func pipeOf(q querier) *pipeline {
	switch c := q.(type) {
	case counted:
		return c.pipe
	case preparedTx:
		return c.count.pipe
	}
	return nil
}

// run runs stmts in order: on PostgreSQL in one round trip together with
// the statements queued before them, on SQLite one after another through
// q. It returns the first error.
func (s *Store) run(ctx context.Context, q querier, stmts ...stmt) error {
	if p := pipeOf(q); p != nil {
		return p.send(ctx, stmts)
	}
	for _, st := range stmts {
		if err := runOne(ctx, q, st); err != nil {
			return err
		}
	}
	return nil
}

// queue runs stmts with the next round trip of q's write on PostgreSQL
// (their errors come then), and at once elsewhere.
func (s *Store) queue(ctx context.Context, q querier, stmts ...stmt) error {
	if p := pipeOf(q); p != nil {
		for _, st := range stmts {
			st.write = p.write
			p.pending = append(p.pending, st)
		}
		return nil
	}
	return s.run(ctx, q, stmts...)
}

// runOne runs one statement through q.
func runOne(ctx context.Context, q querier, st stmt) error {
	if st.rows == nil {
		_, err := q.ExecContext(ctx, st.sql, st.args...)
		return err
	}
	rows, err := q.QueryContext(ctx, st.sql, st.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := st.rows(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// flush sends the statements queued on q's pipeline, if any, before a
// statement run through database/sql.
func (c counted) flush(ctx context.Context) {
	if c.pipe == nil || (len(c.pipe.pending) == 0 && !c.pipe.savepointDue()) || c.pipe.err != nil {
		return
	}
	c.pipe.err = c.pipe.send(ctx, nil)
}

// send sends p's pending statements and then stmts as one pgx batch on
// the transaction's connection: one round trip. A failure breaks the
// transaction (PostgreSQL skips the rest of the batch), which the caller
// rolls back.
func (p *pipeline) send(ctx context.Context, stmts []stmt) error {
	s := p.s
	if p.savepointDue() {
		sp := stmt{sql: "SAVEPOINT " + p.savepoint, write: p.write}
		p.pending = append(p.pending[:p.savepointAt], append([]stmt{sp}, p.pending[p.savepointAt:]...)...)
		p.savepointSent = true
	}
	all := p.pending
	for _, st := range stmts {
		st.write = p.write
		all = append(all, st)
	}
	p.pending = nil
	if len(all) == 0 {
		return nil
	}
	if p.err != nil {
		return p.err
	}
	rec := observe.FromContext(ctx)
	var texts []string
	for _, st := range all {
		text := s.d.rebind(st.sql)
		if !st.commit {
			s.queries.Add(1)
			rec.AddSQLStatement()
			if s.trace != nil {
				s.trace(text, st.args)
			}
		}
		texts = append(texts, text)
	}
	s.roundTrips.Add(1)
	rec.AddSQLRoundTrip()
	p.sends++
	ctx, span := batchSpan(ctx, texts)
	err := p.conn.Raw(func(dc any) error {
		conn := dc.(*stdlib.Conn).Conn()
		b := &pgx.Batch{}
		for i, st := range all {
			b.Queue(texts[i], st.args...)
		}
		br := conn.SendBatch(ctx, b)
		at, err := readBatch(br, all)
		if cerr := br.Close(); err == nil && cerr != nil {
			at, err = len(all)-1, cerr
		}
		if err != nil {
			p.failedWrite = all[at].write
		}
		return err
	})
	p.begun = true
	endStatement(span, err)
	if err != nil {
		p.err = err
	}
	return err
}

// lazySavepoint starts a write that runs under savepoint name if it sends
// anything (pipeline.savepoint).
func (p *pipeline) lazySavepoint(name string) {
	p.savepoint, p.savepointAt, p.savepointSent = name, len(p.pending), false
}

// savepointDue reports whether the current write's savepoint is yet to be
// sent.
func (p *pipeline) savepointDue() bool { return p.savepoint != "" && !p.savepointSent }

// readBatch reads the results of a sent batch in order, stopping at the
// first error, whose statement's index it returns.
func readBatch(br pgx.BatchResults, stmts []stmt) (int, error) {
	for i, st := range stmts {
		if st.rows == nil {
			if _, err := br.Exec(); err != nil {
				return i, fmt.Errorf("%s: %w", firstWords(st.sql), err)
			}
			continue
		}
		rows, err := br.Query()
		if err != nil {
			return i, fmt.Errorf("%s: %w", firstWords(st.sql), err)
		}
		for rows.Next() {
			if err := st.rows(rows.Scan); err != nil {
				rows.Close()
				return i, err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return i, fmt.Errorf("%s: %w", firstWords(st.sql), err)
		}
	}
	return 0, nil
}

// firstWords names a statement in an error by its first words.
func firstWords(sql string) string {
	f := strings.Fields(sql)
	return strings.Join(f[:min(len(f), 4)], " ")
}

// batchSpan counts nothing (send does) and, when the request is traced,
// opens the span of a batch, carrying its statements' texts.
func batchSpan(ctx context.Context, texts []string) (context.Context, trace.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil
	}
	text := strings.Join(texts, ";\n")
	if len(text) > maxStatementText {
		text = text[:maxStatementText]
	}
	return observe.Tracer(ctx, tracerName).Start(ctx, "sql BATCH",
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.query.text", text), attribute.Int("db.operation.batch.size", len(texts))))
}

// rollback ends p's transaction after a failure. A connection that cannot
// roll back is closed, so that the pool does not hand it out again.
func (p *pipeline) rollback() {
	if !p.begun {
		return // nothing was sent
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := p.conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		_ = p.conn.Raw(func(dc any) error {
			return dc.(*stdlib.Conn).Close()
		})
	}
}
