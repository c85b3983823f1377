package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

var _ upstream.Idempotency = (*Store)(nil)

// States of an idempotency key (column state of idempotency_keys).
const (
	keyRunning = "running" // reserved; the request runs and has not written
	keyApplied = "applied" // the request's write committed; its answer is not recorded yet
	keyDone    = "done"    // the answer is recorded for replay
)

const keyWhere = "account_id = ? AND user_id = ? AND method = ? AND path = ? AND key = ?"

func keyArgs(k upstream.IdempotencyKey) []any {
	return []any{k.AccountID, k.UserID, k.Method, k.Path, k.Key}
}

// ReserveIdempotencyKey implements upstream.Idempotency. Reservation, write
// and record are three transactions of the single writer; the write's own
// transaction marks the key applied (markApplied), so two requests with one
// key never both write: the second finds the key running, applied or done.
// Expired keys are swept on the way.
func (s *Store) ReserveIdempotencyKey(ctx context.Context, k upstream.IdempotencyKey) (*upstream.IdempotentResponse, error) {
	now := s.now()
	var out *upstream.IdempotentResponse
	err := s.keyTx(ctx, func(tx querier) error {
		if _, err := tx.ExecContext(ctx, "/* all accounts: retention */ DELETE FROM idempotency_keys WHERE expires_at < ?", upstream.FormatTime(now)); err != nil {
			return fmt.Errorf("sqlstore: sweep idempotency keys: %w", err)
		}
		var hash, state, created string
		var resp []byte
		err := tx.QueryRowContext(ctx, "SELECT request_hash, state, created_at, response FROM idempotency_keys WHERE "+keyWhere, keyArgs(k)...).
			Scan(&hash, &state, &created, &resp)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err := tx.ExecContext(ctx, "INSERT INTO idempotency_keys (account_id, user_id, method, path, key, request_hash, state, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
				append(keyArgs(k), k.Hash, keyRunning, upstream.FormatTime(now), upstream.FormatTime(now.Add(upstream.IdempotencyTTL)))...)
			if err != nil {
				return fmt.Errorf("sqlstore: reserve idempotency key: %w", err)
			}
			return nil
		case err != nil:
			return fmt.Errorf("sqlstore: read idempotency key: %w", err)
		case hash != k.Hash:
			return upstream.Errorf(upstream.CodeIdempotencyKeyReused, "this Idempotency-Key was used with a different request; use a new key for a new request")
		case state == keyDone:
			out = new(upstream.IdempotentResponse)
			if err := json.Unmarshal(resp, out); err != nil {
				return fmt.Errorf("sqlstore: decode recorded answer: %w", err)
			}
			return nil
		case state == keyRunning && created < upstream.FormatTime(now.Add(-upstream.IdempotencyLease)):
			// The request holding the key died before writing: take it over.
			_, err := tx.ExecContext(ctx, "UPDATE idempotency_keys SET created_at = ? WHERE "+keyWhere, append([]any{upstream.FormatTime(now)}, keyArgs(k)...)...)
			if err != nil {
				return fmt.Errorf("sqlstore: take over idempotency key: %w", err)
			}
			return nil
		case state == keyRunning:
			return upstream.Errorf(upstream.CodeIdempotencyKeyInUse, "a request with this Idempotency-Key is still running; retry when it has answered")
		default: // applied
			return upstream.Errorf(upstream.CodeIdempotencyKeyInUse, "the request with this Idempotency-Key was applied but its answer was not recorded; read the resource instead of retrying")
		}
	})
	return out, err
}

// CompleteIdempotencyKey implements upstream.Idempotency.
func (s *Store) CompleteIdempotencyKey(ctx context.Context, k upstream.IdempotencyKey, resp upstream.IdempotentResponse) error {
	doc, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("sqlstore: encode recorded answer: %w", err)
	}
	return s.keyTx(ctx, func(tx querier) error {
		if _, err := tx.ExecContext(ctx, "UPDATE idempotency_keys SET state = ?, response = ? WHERE "+keyWhere,
			append([]any{keyDone, string(doc)}, keyArgs(k)...)...); err != nil {
			return fmt.Errorf("sqlstore: record idempotent answer: %w", err)
		}
		return nil
	})
}

// ReleaseIdempotencyKey implements upstream.Idempotency. A key whose write
// committed is not released: a retry must not write again.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, k upstream.IdempotencyKey) error {
	return s.keyTx(ctx, func(tx querier) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE state = ? AND "+keyWhere, append([]any{keyRunning}, keyArgs(k)...)...); err != nil {
			return fmt.Errorf("sqlstore: release idempotency key: %w", err)
		}
		return nil
	})
}

// keyTx runs fn in a write transaction of its own, outside s.tx: the
// bookkeeping of keys is not a write of the request.
func (s *Store) keyTx(ctx context.Context, fn func(querier) error) error {
	if s.pg != nil {
		return s.pg.retry(ctx, func() error { return s.keyTxOnce(ctx, fn) })
	}
	return s.keyTxOnce(ctx, fn)
}

// keyTxOnce is one attempt at keyTx.
func (s *Store) keyTxOnce(ctx context.Context, fn func(querier) error) error {
	tx, err := s.w.BeginTx(ctx, s.pg.txOptions())
	if err != nil {
		return fmt.Errorf("sqlstore: begin: %w", err)
	}
	q := counted{q: tx, d: s.d, n: &s.queries, rt: &s.roundTrips, tx: true, trace: s.trace}
	if s.pg != nil {
		err = s.pg.lock(ctx, q) // two reservations of one key wait for each other
	}
	if err == nil {
		err = fn(q)
	}
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: commit: %w", err)
	}
	return nil
}

// markApplied marks the reserved key k (nil: none) applied, in the
// transaction of the request's write (called by afterWrite), so a retry
// never writes twice even if the answer is never recorded.
func markApplied(ctx context.Context, q querier, k *upstream.IdempotencyKey) error {
	if k == nil {
		return nil
	}
	if _, err := q.ExecContext(ctx, "UPDATE idempotency_keys SET state = ? WHERE state = ? AND "+keyWhere,
		append([]any{keyApplied, keyRunning}, keyArgs(*k)...)...); err != nil {
		return fmt.Errorf("sqlstore: mark idempotency key applied: %w", err)
	}
	return nil
}
