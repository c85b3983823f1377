package sqlstore

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// Hooks for the package's external tests.

// QueuedWrites returns the number of writes of account waiting for a
// group transaction (groupcommit.go).
func (s *Store) QueuedWrites(account string) int { return s.groups.queued(account) }

// GroupedWrites returns the group transactions drained so far and the
// writes they took (groupcommit.go), as the store's metrics report them
// (GroupCollector, gathered by a pedantic registry).
func (s *Store) GroupedWrites() (txs, writes int64) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(s.GroupCollector())
	mfs, err := reg.Gather()
	if err != nil {
		panic(err) // a malformed metric: the tests calling this fail
	}
	for _, mf := range mfs {
		v := int64(mf.GetMetric()[0].GetCounter().GetValue())
		switch mf.GetName() {
		case "okrgate_db_write_groups_total":
			txs = v
		case "okrgate_db_grouped_writes_total":
			writes = v
		}
	}
	return txs, writes
}

// HoldWrites starts a write of ctx's account that keeps its transaction
// open until release is called, and returns once the transaction holds the
// account's lock; release returns the write's result.
func (s *Store) HoldWrites(ctx context.Context) (release func() error) {
	started, hold, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- s.tx(ctx, func(q querier) error {
			var id string
			if err := q.QueryRowContext(ctx, "SELECT id FROM accounts LIMIT 1").Scan(&id); err != nil {
				return err // sends BEGIN and the lock
			}
			close(started)
			<-hold
			return nil
		})
	}()
	<-started
	return func() error { close(hold); return <-done }
}

// HoldFailingWrite is HoldWrites whose write fails: fail makes it return
// err (a connection that timed out, say) and returns the write's result.
func (s *Store) HoldFailingWrite(ctx context.Context) (fail func(err error) error) {
	started, hold, done := make(chan struct{}), make(chan error), make(chan error, 1)
	go func() {
		done <- s.tx(ctx, func(q querier) error {
			var id string
			if err := q.QueryRowContext(ctx, "SELECT id FROM accounts LIMIT 1").Scan(&id); err != nil {
				return err // sends BEGIN and the lock
			}
			close(started)
			return <-hold
		})
	}()
	<-started
	return func(err error) error { hold <- err; return <-done }
}

// FailingWrite is a write of ctx's account whose statement fails on the
// database server (a division by zero).
func (s *Store) FailingWrite(ctx context.Context) error {
	return s.tx(ctx, func(q querier) error {
		var n int
		return q.QueryRowContext(ctx, "SELECT 1 / (SELECT count(*) FROM accounts WHERE id = '')").Scan(&n)
	})
}

// LateFailingWrite is a write of ctx's account whose statement fails on
// the database server after the write returned: it queues a division by
// zero, which on PostgreSQL goes with a later round trip.
func (s *Store) LateFailingWrite(ctx context.Context) error {
	return s.tx(ctx, func(q querier) error {
		return s.queue(ctx, q, stmt{sql: "SELECT 1 / (SELECT count(*) FROM accounts WHERE id = '')"})
	})
}

// LateFailingCheckIn is a write of ctx's account that joins a run of
// check-ins in a group (it has a prefetch, which loads nothing) and
// queues a division by zero, which fails on the server with a later round
// trip.
func (s *Store) LateFailingCheckIn(ctx context.Context) error {
	return s.checkInTx(ctx, func(querier) []stmt { return nil }, func(q querier) error {
		return s.queue(ctx, q, stmt{sql: "SELECT 1 / (SELECT count(*) FROM accounts WHERE id = '')"})
	})
}

// NamedTableNames returns the tables whose documents VisibilityClasses
// searches for user ids (classes.go).
func NamedTableNames() []string {
	out := make([]string, len(namedTables))
	for i, t := range namedTables {
		out[i] = t.table
	}
	return out
}
