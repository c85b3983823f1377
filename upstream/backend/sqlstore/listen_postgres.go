package sqlstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Wakes across replicas on PostgreSQL: every write that appends events
// also sends NOTIFY on the schema's events channel (appendEvents), which
// PostgreSQL delivers when, and only if, the transaction commits. Each
// store whose readers wait on EventsChanged listens on that channel on a
// connection of its own (not one of the pool's) and wakes them, so a
// check-in on one replica reaches the subscriptions and the webhook
// dispatcher of the others at once instead of at their next poll. A
// notification missed while the connection was down is made up for by a
// wake after every reconnect, and by the readers' polling, kept as a
// fallback at a longer interval.

// eventsChannelSQL names the schema's events channel: stores of several
// schemas in one database (tests) do not wake each other. Channel names
// are identifiers (at most 63 bytes), hence the digest.
const eventsChannelSQL = "'okrgate_events_' || left(md5(current_schema()), 16)"

// A write's notification is sent by the statement that appends its events
// (appendEventsSQL on PostgreSQL); its payload, the account, is
// informative only.

// listenRetry bounds the wait before reconnecting a lost listener.
const listenRetry = 5 * time.Second

// pgListener is the listening connection of a store, started by the first
// EventsChanged and stopped by Close.
type pgListener struct {
	once   sync.Once
	cancel context.CancelFunc
	done   chan struct{}
}

// start begins listening for s, once.
func (l *pgListener) start(s *Store) {
	l.once.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		l.cancel, l.done = cancel, make(chan struct{})
		go func() {
			defer close(l.done)
			s.listen(ctx)
		}()
	})
}

// stop ends the listener, if it was started, and waits for it.
func (l *pgListener) stop() {
	l.once.Do(func() {}) // never start after a stop
	if l.cancel != nil {
		l.cancel()
		<-l.done
	}
}

// listen keeps a listening connection until ctx ends, reconnecting after
// a failure with a growing pause.
func (s *Store) listen(ctx context.Context) {
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		if err := s.listenOnce(ctx); err != nil && ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
			pause = min(2*pause, listenRetry)
		}
	}
}

// listenOnce connects, listens on the events channel and wakes the
// store's readers after LISTEN (they may have missed notifications while
// no connection listened) and at every notification, until the
// connection fails or ctx ends.
func (s *Store) listenOnce(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.pg.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("sqlstore: listen: %w", err)
	}
	defer conn.Close(context.Background())
	var channel string
	if err := conn.QueryRow(ctx, "SELECT "+eventsChannelSQL).Scan(&channel); err != nil {
		return fmt.Errorf("sqlstore: listen: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("sqlstore: listen: %w", err)
	}
	s.changed.notify()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return fmt.Errorf("sqlstore: listen: %w", err)
		}
		s.changed.notify()
	}
}
