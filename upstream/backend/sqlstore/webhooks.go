package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

var _ upstream.WebhookService = (*Store)(nil)

// WithWebhookPolicy sets the policy webhook target URLs are checked
// against when a webhook is created or changed (default: private and
// loopback addresses refused). The dispatcher checks them again when it
// connects.
func WithWebhookPolicy(p upstream.WebhookTargetPolicy) Option {
	return func(s *Store) { s.webhookPolicy = p }
}

// SetWebhookPolicy sets the policy of WithWebhookPolicy on an open store
// (serve, once its flags are read). Call it before the store serves.
func (s *Store) SetWebhookPolicy(p upstream.WebhookTargetPolicy) { s.webhookPolicy = p }

// webhookColumns are the columns scanWebhook reads.
const webhookColumns = "id, url, events, secret, description, active, created_at, updated_at"

type rowScanner interface{ Scan(dest ...any) error }

// scanWebhook reads a webhook row; the secret is returned apart.
func scanWebhook(r rowScanner) (upstream.Webhook, string, error) {
	var w upstream.Webhook
	var events, secret string
	var active int
	if err := r.Scan(&w.ID, &w.URL, &events, &secret, &w.Description, &active, &w.CreatedAt, &w.UpdatedAt); err != nil {
		return w, "", err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return w, "", fmt.Errorf("sqlstore: decode webhook events: %w", err)
	}
	w.Active = active != 0
	w.SecretPrefix = upstream.WebhookSecretFingerprint(secret)
	return w, secret, nil
}

// authorizeWebhooks loads the caller's subject and asks
// upstream.MayManageWebhooks.
func (s *Store) authorizeWebhooks(ctx context.Context, q querier, c upstream.Caller, write bool) error {
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return err
	}
	return upstream.MayManageWebhooks(c, sub, write)
}

// CreateWebhook creates a webhook of the caller's account. It receives the
// events appended from now on: its cursor starts at the account's head.
func (s *Store) CreateWebhook(ctx context.Context, in upstream.WebhookInput) (upstream.NewWebhook, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.NewWebhook{}, err
	}
	var out upstream.NewWebhook
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorizeWebhooks(ctx, q, c, true); err != nil {
			return err
		}
		url, err := upstream.CheckWebhookURL(s.webhookPolicy, in.URL)
		if err != nil {
			return err
		}
		events, err := upstream.NormalizeWebhookEvents(in.Events)
		if err != nil {
			return err
		}
		if err := upstream.CheckWebhookSecret(in.Secret); err != nil {
			return err
		}
		if err := upstream.CheckWebhookDescription(in.Description); err != nil {
			return err
		}
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM webhooks WHERE account_id = ?", c.AccountID).Scan(&n); err != nil {
			return fmt.Errorf("sqlstore: count webhooks: %w", err)
		}
		if n >= upstream.MaxWebhooksPerAccount {
			return upstream.Errorf(upstream.CodeLimitExceeded, "an account has at most %d webhooks", upstream.MaxWebhooksPerAccount)
		}
		var head int64
		if err := q.QueryRowContext(ctx, "SELECT coalesce(max(position), 0) FROM events WHERE account_id = ?", c.AccountID).Scan(&head); err != nil {
			return fmt.Errorf("sqlstore: event head: %w", err)
		}
		secret := in.Secret
		if secret == "" {
			secret = upstream.NewWebhookSecret()
		}
		doc, _ := json.Marshal(events)
		now := s.timestamp()
		active := in.Active == nil || *in.Active
		out = upstream.NewWebhook{Webhook: upstream.Webhook{ID: s.ids.New(), URL: url, Events: events, Description: in.Description,
			Active: active, SecretPrefix: upstream.WebhookSecretFingerprint(secret), CreatedAt: now, UpdatedAt: now}, Secret: secret}
		_, err = q.ExecContext(ctx, `INSERT INTO webhooks (id, account_id, url, events, secret, description, active, last_position, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, out.ID, c.AccountID, url, string(doc), secret, in.Description, boolInt(active), head, now, now)
		if err != nil {
			return fmt.Errorf("sqlstore: create webhook: %w", err)
		}
		return nil
	})
	return out, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ListWebhooks lists the webhooks of the caller's account, oldest first,
// without their secrets.
func (s *Store) ListWebhooks(ctx context.Context) ([]upstream.Webhook, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	q := s.read()
	if err := s.authorizeWebhooks(ctx, q, c, false); err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE account_id = ? ORDER BY created_at, id", c.AccountID)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list webhooks: %w", err)
	}
	defer rows.Close()
	out := []upstream.Webhook{}
	for rows.Next() {
		w, _, err := scanWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: list webhooks: %w", err)
		}
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: list webhooks: %w", err)
	}
	return out, nil
}

// getWebhook reads one webhook of account; another account's is not found.
func getWebhook(ctx context.Context, q querier, accountID, id string) (upstream.Webhook, string, error) {
	w, secret, err := scanWebhook(q.QueryRowContext(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = ? AND account_id = ?", id, accountID))
	if isNoRows(err) {
		return w, "", upstream.NotFound("webhook", id)
	}
	if err != nil {
		return w, "", fmt.Errorf("sqlstore: get webhook: %w", err)
	}
	return w, secret, nil
}

// GetWebhook returns one webhook of the caller's account, without its secret.
func (s *Store) GetWebhook(ctx context.Context, id string) (upstream.Webhook, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Webhook{}, err
	}
	q := s.read()
	if err := s.authorizeWebhooks(ctx, q, c, false); err != nil {
		return upstream.Webhook{}, err
	}
	w, _, err := getWebhook(ctx, q, c.AccountID, id)
	return w, err
}

// UpdateWebhook changes the fields of a webhook that the patch sets.
// Reactivating a webhook does not replay what happened while it was
// paused: its cursor moves to the account's head.
func (s *Store) UpdateWebhook(ctx context.Context, id string, in upstream.WebhookPatch) (upstream.NewWebhook, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.NewWebhook{}, err
	}
	var out upstream.NewWebhook
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorizeWebhooks(ctx, q, c, true); err != nil {
			return err
		}
		w, secret, err := getWebhook(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		wasActive := w.Active
		if in.URL != nil {
			if w.URL, err = upstream.CheckWebhookURL(s.webhookPolicy, *in.URL); err != nil {
				return err
			}
		}
		if in.Events != nil {
			if w.Events, err = upstream.NormalizeWebhookEvents(*in.Events); err != nil {
				return err
			}
		}
		if in.Description != nil {
			if err := upstream.CheckWebhookDescription(*in.Description); err != nil {
				return err
			}
			w.Description = *in.Description
		}
		if in.Active != nil {
			w.Active = *in.Active
		}
		if in.Secret != nil {
			if err := upstream.CheckWebhookSecret(*in.Secret); err != nil {
				return err
			}
			if secret = *in.Secret; secret == "" {
				secret = upstream.NewWebhookSecret()
			}
			out.Secret = secret
		}
		w.SecretPrefix = upstream.WebhookSecretFingerprint(secret)
		w.UpdatedAt = s.timestamp()
		doc, _ := json.Marshal(w.Events)
		if _, err := q.ExecContext(ctx, `UPDATE webhooks SET url = ?, events = ?, secret = ?, description = ?, active = ?, updated_at = ?
			WHERE id = ? AND account_id = ?`, w.URL, string(doc), secret, w.Description, boolInt(w.Active), w.UpdatedAt, id, c.AccountID); err != nil {
			return fmt.Errorf("sqlstore: update webhook: %w", err)
		}
		if w.Active && !wasActive {
			if _, err := q.ExecContext(ctx, `UPDATE webhooks SET last_position = (SELECT coalesce(max(position), 0) FROM events WHERE account_id = ?)
				WHERE id = ?`, c.AccountID, id); err != nil {
				return fmt.Errorf("sqlstore: update webhook: %w", err)
			}
		}
		out.Webhook = w
		return nil
	})
	return out, err
}

// DeleteWebhook deletes a webhook of the caller's account and its deliveries.
func (s *Store) DeleteWebhook(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		if err := s.authorizeWebhooks(ctx, q, c, true); err != nil {
			return err
		}
		res, err := q.ExecContext(ctx, "DELETE FROM webhooks WHERE id = ? AND account_id = ?", id, c.AccountID)
		if err != nil {
			return fmt.Errorf("sqlstore: delete webhook: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return upstream.NotFound("webhook", id)
		}
		if _, err := q.ExecContext(ctx, "DELETE FROM webhook_deliveries WHERE webhook_id = ? AND account_id = ?", id, c.AccountID); err != nil {
			return fmt.Errorf("sqlstore: delete webhook deliveries: %w", err)
		}
		return nil
	})
}

// ListWebhookDeliveries lists up to limit deliveries of a webhook of the
// caller's account, newest event first, before position before (0: from
// the newest).
func (s *Store) ListWebhookDeliveries(ctx context.Context, id string, before int64, limit int) ([]upstream.WebhookDelivery, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	q := s.read()
	if err := s.authorizeWebhooks(ctx, q, c, false); err != nil {
		return nil, err
	}
	if _, _, err := getWebhook(ctx, q, c.AccountID, id); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > upstream.MaxDeliveriesPerPage {
		limit = upstream.MaxDeliveriesPerPage
	}
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := q.QueryContext(ctx, `SELECT id, webhook_id, position, type, status, attempt_log, coalesce(next_attempt_at, ''), created_at, coalesce(completed_at, '')
		FROM webhook_deliveries WHERE webhook_id = ? AND account_id = ? AND position < ? ORDER BY position DESC LIMIT ?`, id, c.AccountID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list deliveries: %w", err)
	}
	defer rows.Close()
	out := []upstream.WebhookDelivery{}
	for rows.Next() {
		var d upstream.WebhookDelivery
		var typ, log string
		if err := rows.Scan(&d.ID, &d.WebhookID, &d.Position, &typ, &d.Status, &log, &d.NextAttemptAt, &d.CreatedAt, &d.CompletedAt); err != nil {
			return nil, fmt.Errorf("sqlstore: list deliveries: %w", err)
		}
		d.EventType = upstream.EventType(typ)
		if err := json.Unmarshal([]byte(log), &d.Attempts); err != nil {
			return nil, fmt.Errorf("sqlstore: decode delivery attempts: %w", err)
		}
		if d.Attempts == nil {
			d.Attempts = []upstream.WebhookAttempt{}
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: list deliveries: %w", err)
	}
	return out, nil
}
