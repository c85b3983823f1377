package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

// The delivery queue of webhooks: what a dispatcher (upstream/infra/dispatch)
// reads and writes. Deliveries are made from the event log, which holds
// committed events only, and are rows of their own, so they outlive the
// process: a restart reloads the pending ones from the table.
//
// On PostgreSQL several replicas run a dispatcher each. A webhook's events
// are turned into deliveries under its row lock, taken with FOR UPDATE
// SKIP LOCKED (a replica finding it locked moves on), and the unique
// (webhook_id, position) drops a repeat; due deliveries are claimed the
// same way and leased, so one replica sends each attempt. A lease left by
// a replica that stopped mid-attempt expires and the delivery is tried
// again: deliveries are at least once, and their id lets a receiver drop
// repeats.

// skipLocked returns the row-locking clause of a claim: FOR UPDATE SKIP
// LOCKED on PostgreSQL (of the table alias of, when set); nothing on
// SQLite, whose writer is one connection in IMMEDIATE transactions.
func (s *Store) skipLocked(of string) string {
	if s.pg == nil {
		return ""
	}
	if of != "" {
		return " FOR UPDATE OF " + of + " SKIP LOCKED"
	}
	return " FOR UPDATE SKIP LOCKED"
}

// EnqueueWebhookDeliveries turns the events appended since each active
// webhook's cursor into pending deliveries (those of the types it
// selects) and moves the cursor, one transaction per webhook, at most
// upstream.MaxEventsPerRead events each. It returns how many deliveries
// it queued; the dispatcher calls it again while it queues any.
func (s *Store) EnqueueWebhookDeliveries(ctx context.Context, now time.Time) (int, error) {
	// Only webhooks behind their account's log get a write transaction:
	// a wake-up with nothing new costs one read, not a write per webhook.
	rows, err := s.read().QueryContext(ctx, `/* all accounts: webhook dispatch */ SELECT w.account_id, w.id FROM webhooks w
		WHERE w.active = 1 AND EXISTS (SELECT 1 FROM events e WHERE e.account_id = w.account_id AND e.position > w.last_position)
		ORDER BY w.id`)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: list webhooks: %w", err)
	}
	var ids [][2]string // account, webhook
	for rows.Next() {
		var account, id string
		if err := rows.Scan(&account, &id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("sqlstore: list webhooks: %w", err)
		}
		ids = append(ids, [2]string{account, id})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqlstore: list webhooks: %w", err)
	}
	total := 0
	for _, w := range ids {
		n, err := s.enqueueWebhook(ctx, w[0], w[1], now)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// enqueueWebhook queues the new events of one webhook of account.
func (s *Store) enqueueWebhook(ctx context.Context, account, id string, now time.Time) (int, error) {
	queued := 0
	err := s.tx(ctx, func(q querier) error {
		queued = 0
		var events string
		var last int64
		err := q.QueryRowContext(ctx, "SELECT events, last_position FROM webhooks WHERE id = ? AND account_id = ? AND active = 1"+s.skipLocked(""), id, account).
			Scan(&events, &last)
		if isNoRows(err) {
			return nil // deleted, paused, or being queued by another replica
		}
		if err != nil {
			return fmt.Errorf("sqlstore: lock webhook: %w", err)
		}
		var types []upstream.EventType
		if err := json.Unmarshal([]byte(events), &types); err != nil {
			return fmt.Errorf("sqlstore: decode webhook events: %w", err)
		}
		rows, err := q.QueryContext(ctx, "SELECT position, type, doc FROM events WHERE account_id = ? AND position > ? ORDER BY position LIMIT ?",
			account, last, upstream.MaxEventsPerRead)
		if err != nil {
			return fmt.Errorf("sqlstore: read events: %w", err)
		}
		type ev struct {
			pos       int64
			typ, doc  string
			delivered bool
		}
		var evs []ev
		for rows.Next() {
			var e ev
			if err := rows.Scan(&e.pos, &e.typ, &e.doc); err != nil {
				rows.Close()
				return fmt.Errorf("sqlstore: read events: %w", err)
			}
			e.delivered = upstream.WebhookWants(types, upstream.EventType(e.typ))
			evs = append(evs, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("sqlstore: read events: %w", err)
		}
		if len(evs) == 0 {
			return nil
		}
		at := upstream.FormatTime(now)
		for _, e := range evs {
			if !e.delivered {
				continue
			}
			res, err := q.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, account_id, webhook_id, position, type, status, payload, created_at, next_attempt_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, webhook_id, position) DO NOTHING`,
				s.ids.New(), account, id, e.pos, e.typ, upstream.DeliveryPending, e.doc, at, at)
			if err != nil {
				return fmt.Errorf("sqlstore: queue delivery: %w", err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				queued++
			}
		}
		if _, err := q.ExecContext(ctx, "UPDATE webhooks SET last_position = ? WHERE id = ? AND account_id = ?", evs[len(evs)-1].pos, id, account); err != nil {
			return fmt.Errorf("sqlstore: move webhook cursor: %w", err)
		}
		return nil
	})
	return queued, err
}

// ClaimWebhookDeliveries claims up to limit deliveries due at now (of
// active webhooks, not leased by another dispatcher) until now+lease, and
// returns them, the most overdue first.
func (s *Store) ClaimWebhookDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]upstream.WebhookJob, error) {
	at := upstream.FormatTime(now)
	var due int
	// A read first: when nothing is due (the common case) no write
	// transaction is opened.
	if err := s.read().QueryRowContext(ctx, `/* all accounts: webhook dispatch */ SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries
		WHERE status = ? AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?) LIMIT 1) AS due`,
		upstream.DeliveryPending, at, at).Scan(&due); err != nil {
		return nil, fmt.Errorf("sqlstore: claim deliveries: %w", err)
	}
	if due == 0 {
		return nil, nil
	}
	var jobs []upstream.WebhookJob
	err := s.tx(ctx, func(q querier) error {
		jobs = nil
		ids, err := s.claimDue(ctx, q, at, limit)
		if err != nil {
			return fmt.Errorf("sqlstore: claim deliveries: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		if _, err := q.ExecContext(ctx, "/* all accounts: webhook dispatch */ UPDATE webhook_deliveries SET lease_until = ? WHERE id IN "+idList,
			upstream.FormatTime(now.Add(lease)), idsParam(ids)); err != nil {
			return fmt.Errorf("sqlstore: lease deliveries: %w", err)
		}
		rows, err := q.QueryContext(ctx, `/* all accounts: webhook dispatch */
			SELECT d.id, d.webhook_id, d.account_id, w.url, w.secret, d.type, d.payload, d.attempts, d.created_at
			FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.account_id = d.account_id WHERE d.id IN `+idList+` ORDER BY d.next_attempt_at, d.id`, idsParam(ids))
		if err != nil {
			return fmt.Errorf("sqlstore: read deliveries: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var j upstream.WebhookJob
			var typ, payload, created string
			if err := rows.Scan(&j.ID, &j.WebhookID, &j.AccountID, &j.URL, &j.Secret, &typ, &payload, &j.Attempt, &created); err != nil {
				return fmt.Errorf("sqlstore: read deliveries: %w", err)
			}
			j.Type = upstream.EventType(typ)
			j.Attempt++
			if err := json.Unmarshal([]byte(payload), &j.Event); err != nil {
				return fmt.Errorf("sqlstore: decode delivery event: %w", err)
			}
			if j.CreatedAt, err = time.Parse(upstream.TimeLayout, created); err != nil {
				return fmt.Errorf("sqlstore: delivery time: %w", err)
			}
			jobs = append(jobs, j)
		}
		return rows.Err()
	})
	return jobs, err
}

// RecordWebhookAttempt records an attempt of a claimed delivery (id, of
// account) and its outcome (state, and the next attempt's time while
// pending), and releases the lease.
func (s *Store) RecordWebhookAttempt(ctx context.Context, account, id string, a upstream.WebhookAttempt, state string) error {
	return s.tx(ctx, func(q querier) error {
		var log string
		err := q.QueryRowContext(ctx, "SELECT attempt_log FROM webhook_deliveries WHERE id = ? AND account_id = ?", id, account).Scan(&log)
		if isNoRows(err) {
			return nil // its webhook was deleted meanwhile
		}
		if err != nil {
			return fmt.Errorf("sqlstore: record attempt: %w", err)
		}
		var attempts []upstream.WebhookAttempt
		if err := json.Unmarshal([]byte(log), &attempts); err != nil {
			return fmt.Errorf("sqlstore: decode delivery attempts: %w", err)
		}
		attempts = append(attempts, a)
		doc, err := json.Marshal(attempts)
		if err != nil {
			return fmt.Errorf("sqlstore: encode delivery attempts: %w", err)
		}
		var next, completed any
		if state == upstream.DeliveryPending {
			next = a.NextAttemptAt
		} else {
			completed = a.At
		}
		if _, err := q.ExecContext(ctx, `UPDATE webhook_deliveries SET attempts = ?, attempt_log = ?, status = ?, next_attempt_at = ?,
			lease_until = NULL, completed_at = ? WHERE id = ? AND account_id = ?`, len(attempts), string(doc), state, next, completed, id, account); err != nil {
			return fmt.Errorf("sqlstore: record attempt: %w", err)
		}
		return nil
	})
}

// WebhookQueueDepth returns how many deliveries are pending, over every
// account.
func (s *Store) WebhookQueueDepth(ctx context.Context) (int64, error) {
	var n int64
	if err := s.read().QueryRowContext(ctx, "/* all accounts: webhook dispatch */ SELECT count(*) FROM webhook_deliveries WHERE status = ?", upstream.DeliveryPending).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlstore: webhook queue depth: %w", err)
	}
	return n, nil
}

// NextWebhookAttempt returns when the earliest pending delivery of an
// active webhook is due (ok false when none is pending), so a dispatcher
// can sleep until then.
func (s *Store) NextWebhookAttempt(ctx context.Context) (time.Time, bool, error) {
	var at string
	err := s.read().QueryRowContext(ctx, `/* all accounts: webhook dispatch */
		SELECT coalesce(min(CASE WHEN d.lease_until > d.next_attempt_at THEN d.lease_until ELSE d.next_attempt_at END), '')
		FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.account_id = d.account_id WHERE d.status = ? AND w.active = 1`, upstream.DeliveryPending).Scan(&at)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("sqlstore: next webhook attempt: %w", err)
	}
	if at == "" {
		return time.Time{}, false, nil
	}
	t, err := time.Parse(upstream.TimeLayout, at)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("sqlstore: next webhook attempt: %w", err)
	}
	return t, true, nil
}

// ReleaseWebhookLeases drops the leases of a previous run of this process:
// on SQLite one process serves the database, so a lease left at startup
// belongs to a process that stopped mid-attempt, and its delivery can be
// tried at once. On PostgreSQL a lease may be another replica's; they
// expire instead.
func (s *Store) ReleaseWebhookLeases(ctx context.Context) error {
	if s.pg != nil {
		return nil
	}
	return s.tx(ctx, func(q querier) error {
		if _, err := q.ExecContext(ctx, "/* all accounts: webhook dispatch */ UPDATE webhook_deliveries SET lease_until = NULL WHERE lease_until IS NOT NULL"); err != nil {
			return fmt.Errorf("sqlstore: release webhook leases: %w", err)
		}
		return nil
	})
}

// PruneWebhookDeliveries deletes the completed deliveries (succeeded or
// failed) completed before retention ago; serve runs it with the event
// log's pruning.
func (s *Store) PruneWebhookDeliveries(ctx context.Context, retention time.Duration) (int64, error) {
	cutoff := upstream.FormatTime(s.now().Add(-retention))
	w := counted{q: s.w, d: s.d, n: &s.queries, rt: &s.roundTrips, trace: s.trace}
	res, err := w.ExecContext(ctx, "/* all accounts: retention */ DELETE FROM webhook_deliveries WHERE status <> ? AND completed_at < ?", upstream.DeliveryPending, cutoff)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: prune deliveries: %w", err)
	}
	return res.RowsAffected()
}

// claimDue locks up to limit due deliveries of active webhooks, skipping
// those another dispatcher holds, and returns their ids. The due ones are
// found across accounts without a lock, then each account's are locked
// with a statement naming the account (FOR UPDATE SKIP LOCKED, which
// checks again that they are due): Citus runs a row-locking SELECT only
// on one shard (docs/decisions/citus.md, "Sharding by account on Citus"). When
// another dispatcher holds some, the next due ones are tried, until limit
// are locked or none is left.
func (s *Store) claimDue(ctx context.Context, q querier, at string, limit int) ([]string, error) {
	var ids []string
	tried := []string{} // a JSON array, never null
	for len(ids) < limit {
		accounts, due, err := s.dueDeliveries(ctx, q, at, limit-len(ids), tried)
		if err != nil || len(accounts) == 0 {
			return ids, err
		}
		for _, account := range accounts {
			tried = append(tried, due[account]...)
			if s.pg == nil { // one writer: nobody else claims them
				ids = append(ids, due[account]...)
				continue
			}
			locked, err := s.lockDue(ctx, q, account, due[account], at)
			if err != nil {
				return nil, err
			}
			ids = append(ids, locked...)
		}
	}
	return ids, nil
}

// dueDeliveries returns up to limit due deliveries of active webhooks but
// those of skip, by account, the accounts in the order of their most
// overdue delivery.
func (s *Store) dueDeliveries(ctx context.Context, q querier, at string, limit int, skip []string) ([]string, map[string][]string, error) {
	rows, err := q.QueryContext(ctx, `/* all accounts: webhook dispatch */ SELECT d.account_id, d.id FROM webhook_deliveries d
		JOIN webhooks w ON w.id = d.webhook_id AND w.account_id = d.account_id WHERE d.status = ? AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?) AND w.active = 1
		AND d.id NOT IN `+idList+` ORDER BY d.next_attempt_at, d.id LIMIT ?`, upstream.DeliveryPending, at, at, idsParam(skip), limit)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var accounts []string
	due := map[string][]string{}
	for rows.Next() {
		var account, id string
		if err := rows.Scan(&account, &id); err != nil {
			return nil, nil, err
		}
		if due[account] == nil {
			accounts = append(accounts, account)
		}
		due[account] = append(due[account], id)
	}
	return accounts, due, rows.Err()
}

// lockDue locks those of ids, deliveries of account, that are still due
// and that no other transaction holds, and returns them.
func (s *Store) lockDue(ctx context.Context, q querier, account string, ids []string, at string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT id FROM webhook_deliveries WHERE account_id = ? AND id IN `+idList+`
		AND status = ? AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`+s.skipLocked(""),
		account, idsParam(ids), upstream.DeliveryPending, at, at)
	if err != nil {
		return nil, err
	}
	return scanStrings(rows)
}
