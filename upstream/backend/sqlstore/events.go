package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

var _ upstream.EventLog = (*Store)(nil)

// eventBuf collects the events of one write transaction; tx appends them
// to the events table just before it commits (appendEvents).
type eventBuf struct {
	events []upstream.Event
}

// mark returns the current length, for rollback.
func (b *eventBuf) mark() int {
	if b == nil {
		return 0
	}
	return len(b.events)
}

// rollback drops the events added after mark (a savepoint rolled back).
func (b *eventBuf) rollback(mark int) {
	if b != nil && mark <= len(b.events) {
		b.events = b.events[:mark]
	}
}

// bufOf returns the event buffer of q's write transaction, or nil.
func bufOf(q querier) *eventBuf {
	switch c := q.(type) {
	case counted:
		return c.ev
	case preparedTx:
		return c.count.ev
	}
	return nil
}

// emit adds e to the events of q's write transaction. Outside one (never
// on the write paths) it does nothing.
func emit(q querier, e upstream.Event) {
	if b := bufOf(q); b != nil {
		b.events = append(b.events, e)
	}
}

// movesVersion returns fn, made to move the data version of the caller's
// account: when fn emitted no event of that account, it emits
// upstream.EventAccountChanged, so that every write of an account appends
// to its log and the log's position changes with everything a read can
// show (shared GraphQL answers are keyed by it); and marks the events of
// a check-in ByCheckIn (upstream.KeepsClasses). Without a caller's
// account fn is returned as is.
func movesVersion(ctx context.Context, fn func(q querier) error) func(q querier) error {
	c, ok := upstream.CallerFrom(ctx)
	if !ok || c.AccountID == "" {
		return fn
	}
	return func(q querier) error {
		b := bufOf(q)
		mark := b.mark()
		if err := fn(q); err != nil || b == nil {
			return err
		}
		mine := b.events[mark:]
		if !slices.ContainsFunc(mine, func(e upstream.Event) bool { return e.AccountID == c.AccountID }) {
			emit(q, upstream.Event{AccountID: c.AccountID, Type: upstream.EventAccountChanged})
			return nil
		}
		if slices.ContainsFunc(mine, func(e upstream.Event) bool { return e.Type == upstream.EventCheckInCreated }) {
			for i := range mine { // a check-in: its figures changed, nothing else
				mine[i].ByCheckIn = true
			}
		}
		return nil
	}
}

// appendEvents writes buf's events (coalesced) to the events table, each
// account's at the positions after its last one, in one statement per
// account that reads the last position and inserts after it (on
// PostgreSQL it also wakes the other replicas' readers at commit:
// listen_postgres.go). The statement waits for the write's last round trip
// (Store.queue). The writer is one connection in IMMEDIATE transactions on
// SQLite, and holds the account's row lock on PostgreSQL (or conflicts and
// is retried under serializable isolation), so no other write reads the
// same last position before this one commits.
func (s *Store) appendEvents(ctx context.Context, q querier, buf *eventBuf) error {
	if buf == nil || len(buf.events) == 0 {
		return nil
	}
	buf.events = upstream.CoalesceEvents(buf.events)
	at := s.timestamp()
	var accounts []string
	docs := map[string][]json.RawMessage{}
	for i := range buf.events {
		e := &buf.events[i]
		e.Position, e.At = 0, at // the statement sets the position
		doc, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("sqlstore: encode event: %w", err)
		}
		if _, ok := docs[e.AccountID]; !ok {
			accounts = append(accounts, e.AccountID)
		}
		docs[e.AccountID] = append(docs[e.AccountID], doc)
	}
	for _, account := range accounts {
		b, err := json.Marshal(docs[account])
		if err != nil {
			return fmt.Errorf("sqlstore: encode events: %w", err)
		}
		if err := s.queue(ctx, s.prepared(q), stmt{sql: appendEventsSQL, args: []any{account, account, at, string(b)}}); err != nil {
			return fmt.Errorf("sqlstore: append events: %w", err)
		}
	}
	return nil
}

// appendEventsSQL appends events to an account's log after its last
// position (parameters: the account twice, the time, a JSON array of the
// events, whose position it sets).
const appendEventsSQL = `WITH base(p) AS (SELECT coalesce(max(position), 0) FROM events WHERE account_id = ?)
	INSERT INTO events (account_id, position, type, item_id, at, doc)
	SELECT ?, base.p + e.key + 1, json_extract(e.value, '$.type'), json_extract(e.value, '$.itemId'), ?,
		json_set(e.value, '$.position', base.p + e.key + 1)
	FROM base, json_each(?) e`

// Events returns up to limit events of the caller's account after position
// after, in position order. limit is at most upstream.MaxEventsPerRead.
func (s *Store) Events(ctx context.Context, after int64, limit int) ([]upstream.Event, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > upstream.MaxEventsPerRead {
		limit = upstream.MaxEventsPerRead
	}
	rows, err := s.read().QueryContext(ctx,
		"SELECT doc FROM events WHERE account_id = ? AND position > ? ORDER BY position LIMIT ?", c.AccountID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: read events: %w", err)
	}
	defer rows.Close()
	var out []upstream.Event
	for rows.Next() {
		var doc string
		if err := rows.Scan(&doc); err != nil {
			return nil, fmt.Errorf("sqlstore: read events: %w", err)
		}
		var e upstream.Event
		if err := json.Unmarshal([]byte(doc), &e); err != nil {
			return nil, fmt.Errorf("sqlstore: decode event: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: read events: %w", err)
	}
	return out, nil
}

// Head returns the last event position of the caller's account.
func (s *Store) Head(ctx context.Context) (int64, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return 0, err
	}
	var pos int64
	if err := s.read().QueryRowContext(ctx, "SELECT coalesce(max(position), 0) FROM events WHERE account_id = ?", c.AccountID).Scan(&pos); err != nil {
		return 0, fmt.Errorf("sqlstore: event head: %w", err)
	}
	return pos, nil
}

// EventsChanged returns a channel closed after the next commit that appends
// events in this process or, on PostgreSQL, in any process on the database
// (LISTEN/NOTIFY: listen_postgres.go; the first call starts listening).
// Readers poll Events besides, for what a lost listening connection missed.
func (s *Store) EventsChanged() <-chan struct{} {
	if s.pg != nil {
		s.pg.listen.start(s)
	}
	return s.changed.wait()
}

// PruneEvents deletes the events older than retention (of every account)
// and returns how many it deleted. The last event of each account is kept
// so positions keep increasing. serve runs it hourly.
func (s *Store) PruneEvents(ctx context.Context, retention time.Duration) (int64, error) {
	cutoff := upstream.FormatTime(s.now().Add(-retention))
	w := counted{q: s.w, d: s.d, n: &s.queries, rt: &s.roundTrips, trace: s.trace}
	res, err := w.ExecContext(ctx, `/* all accounts: retention */ DELETE FROM events WHERE at < ?
		AND position < (SELECT max(e.position) FROM events e WHERE e.account_id = events.account_id)`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: prune events: %w", err)
	}
	return res.RowsAffected()
}

// signal is a broadcast wake-up: wait returns a channel that notify closes.
// The zero value is ready to use.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func (g *signal) wait() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ch == nil {
		g.ch = make(chan struct{})
	}
	return g.ch
}

func (g *signal) notify() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ch != nil {
		close(g.ch)
		g.ch = nil
	}
}

// ancestorsIn returns the ancestors of id, nearest first, following parent
// (which returns "" past the root or where it does not know the goal).
func ancestorsIn(id string, parent func(string) string) []string {
	var out []string
	seen := map[string]bool{id: true}
	for p := parent(id); p != "" && !seen[p]; p = parent(p) {
		seen[p] = true
		out = append(out, p)
	}
	return out
}
