package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

// WithTokenPolicy sets the lifetimes of new API tokens (default
// upstream.DefaultTokenPolicy: 90 days, at most 366).
func WithTokenPolicy(p upstream.TokenPolicy) Option { return func(s *Store) { s.tokens = p } }

// parseScopes reads the comma-separated scopes column.
func parseScopes(col string) []upstream.Scope {
	var out []upstream.Scope
	for _, p := range strings.Split(col, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, upstream.Scope(p))
		}
	}
	if len(out) == 0 {
		// An empty column cannot come from IssueToken; read it as the
		// narrowest grant rather than as "unrestricted".
		return []upstream.Scope{upstream.ScopeRead}
	}
	return out
}

func joinScopes(ss []upstream.Scope) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, ",")
}

// insertToken validates in against the store's policy and stores a new
// token for userID; only the hash of its secret is kept.
func (s *Store) insertToken(ctx context.Context, q querier, accountID, userID string, in upstream.TokenInput) (upstream.NewToken, error) {
	name, err := upstream.ValidateTokenName(in.Name)
	if err != nil {
		return upstream.NewToken{}, err
	}
	scopes, err := upstream.NormalizeScopes(in.Scopes)
	if err != nil {
		return upstream.NewToken{}, err
	}
	now := s.now()
	exp, err := s.tokens.Expiry(now, in)
	if err != nil {
		return upstream.NewToken{}, err
	}
	t := upstream.NewToken{
		Token: upstream.Token{ID: s.ids.New(), Name: name, UserID: userID, CreatedAt: upstream.FormatTime(now),
			ExpiresAt: upstream.FormatTime(exp), Scopes: scopes},
		Secret: newToken(),
	}
	hash := hashToken(t.Secret)
	if _, err := q.ExecContext(ctx, `INSERT INTO tokens (hash, account_id, user_id, created, id, name, scopes, expires)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		hash, accountID, userID, t.CreatedAt, t.ID, t.Name, joinScopes(scopes), t.ExpiresAt); err != nil {
		return upstream.NewToken{}, fmt.Errorf("sqlstore: insert token: %w", err)
	}
	// Authentication finds the token's account here (auth.go).
	if _, err := q.ExecContext(ctx, "INSERT INTO token_accounts (hash, account_id) VALUES (?, ?)", hash, accountID); err != nil {
		return upstream.NewToken{}, fmt.Errorf("sqlstore: insert token: %w", err)
	}
	return t, nil
}

// touchTimeout bounds how long recording a token's use may wait for the
// single writer connection.
const touchTimeout = time.Second

// touchToken records that a token was used at now. It is bookkeeping, done
// at most once per upstream.LastUsedGranularity per token, so it waits for
// the writer at most touchTimeout: when the writer stays busy longer (or the
// client has gone), lastUsedAt stays a little older and the request goes on.
// Any other failure is an error.
func (s *Store) touchToken(ctx context.Context, account, hash string, now time.Time) error {
	tctx, cancel := context.WithTimeout(ctx, touchTimeout)
	defer cancel()
	stale := upstream.FormatTime(now.Add(-upstream.LastUsedGranularity))
	w := counted{q: s.w, d: s.d, n: &s.queries, rt: &s.roundTrips, trace: s.trace}
	_, err := w.ExecContext(tctx, "UPDATE tokens SET last_used = ? WHERE hash = ? AND account_id = ? AND last_used <= ?",
		upstream.FormatTime(now), hash, account, stale)
	if err != nil && tctx.Err() == nil {
		return fmt.Errorf("sqlstore: record token use: %w", err)
	}
	return nil
}

// IssueToken creates a token for userID (the caller's own when empty) under
// the minting rule (upstream.MayMintToken): a user for themselves, a holder
// of users:manage for a user who is not privileged and holds nothing the
// caller does not.
func (s *Store) IssueToken(ctx context.Context, userID string, in upstream.TokenInput) (upstream.NewToken, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.NewToken{}, err
	}
	if userID == "" {
		userID = c.UserID
	}
	var out upstream.NewToken
	err = s.tx(ctx, func(q querier) error {
		u, err := users.get(ctx, q, c.AccountID, userID)
		if err != nil {
			return err
		}
		f := upstream.MintFacts{TargetUserID: userID, TargetActive: u.IsActive}
		if userID != c.UserID {
			caller, err := s.loadSubject(ctx, q, c)
			if err != nil {
				return err
			}
			target, err := s.deriveSubject(ctx, q, upstream.Caller{AccountID: c.AccountID, UserID: userID})
			if err != nil {
				return err
			}
			f.CallerRights, f.TargetRights = caller.Rights(), target.Rights()
		}
		if err := upstream.MayMintToken(c, f); err != nil {
			return err
		}
		out, err = s.insertToken(ctx, q, c.AccountID, userID, in)
		return err
	})
	return out, err
}

// ListTokens lists the caller's own tokens, newest first, without secrets.
func (s *Store) ListTokens(ctx context.Context) ([]upstream.Token, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.read().QueryContext(ctx, `SELECT id, name, user_id, created, expires, last_used, scopes
		FROM tokens WHERE user_id = ? AND account_id = ? ORDER BY created DESC, id DESC`, c.UserID, c.AccountID)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list tokens: %w", err)
	}
	defer rows.Close()
	out := []upstream.Token{}
	for rows.Next() {
		var t upstream.Token
		var lastUsed, scopes string
		if err := rows.Scan(&t.ID, &t.Name, &t.UserID, &t.CreatedAt, &t.ExpiresAt, &lastUsed, &scopes); err != nil {
			return nil, fmt.Errorf("sqlstore: list tokens: %w", err)
		}
		if lastUsed != "" {
			t.LastUsedAt = &lastUsed
		}
		t.Scopes = parseScopes(scopes)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: list tokens: %w", err)
	}
	return out, nil
}

// RevokeToken deletes one of the caller's own tokens.
func (s *Store) RevokeToken(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		var owner, hash string
		err := q.QueryRowContext(ctx, "SELECT user_id, hash FROM tokens WHERE id = ? AND account_id = ?", id, c.AccountID).Scan(&owner, &hash)
		if err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return upstream.NotFound("token", id)
			}
			return fmt.Errorf("sqlstore: revoke token: %w", err)
		}
		if err := upstream.MayRevokeToken(c, id, owner); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, "DELETE FROM tokens WHERE id = ? AND account_id = ?", id, c.AccountID); err != nil {
			return fmt.Errorf("sqlstore: revoke token: %w", err)
		}
		if _, err := q.ExecContext(ctx, "DELETE FROM token_accounts WHERE hash = ? AND account_id = ?", hash, c.AccountID); err != nil {
			return fmt.Errorf("sqlstore: revoke token: %w", err)
		}
		return nil
	})
}
