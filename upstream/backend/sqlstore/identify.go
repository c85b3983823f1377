package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// IdentifyUser returns the caller that a verified identity (package
// authn's OIDC sign-in) acts as in account accountID: the user the identity
// is bound to, else the user whose e-mail is id.Email, to which the
// identity is then bound (upstream.BindIdentity decides; the table
// identities holds the bindings). The e-mail is matched against users'
// e-mails only. The caller has the user's roles and no token of its own.
// An unknown user or a deactivated one is unauthenticated; a suspended
// account is account_suspended, as for an API token (Authenticate).
func (s *Store) IdentifyUser(ctx context.Context, accountID string, id upstream.ProviderIdentity) (upstream.Caller, error) {
	if accountID == "" || id.Email == "" {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "the identity names no user")
	}
	f, err := s.identityFacts(ctx, s.read(), accountID, id)
	if err != nil {
		return upstream.Caller{}, err
	}
	userID, bind, err := upstream.BindIdentity(id, f)
	if err != nil {
		return upstream.Caller{}, err
	}
	if bind {
		// In a transaction that checks the facts again, so that two first
		// sign-ins at once bind one identity at most to the user.
		err = s.tx(ctx, func(q querier) error {
			f, err := s.identityFacts(ctx, q, accountID, id)
			if err != nil {
				return err
			}
			if userID, bind, err = upstream.BindIdentity(id, f); err != nil || !bind {
				return err
			}
			_, err = q.ExecContext(ctx, `INSERT INTO identities (account_id, issuer, subject, user_id, created_at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (account_id, issuer, subject) DO UPDATE SET user_id = excluded.user_id, created_at = excluded.created_at`,
				accountID, id.Issuer, id.Subject, userID, s.timestamp())
			if err != nil {
				return fmt.Errorf("sqlstore: bind identity: %w", err)
			}
			return nil
		})
		if err != nil {
			return upstream.Caller{}, err
		}
	}
	var userDoc, accountDoc []byte
	err = s.read().QueryRowContext(ctx, `
		SELECT u.doc, a.doc
		FROM users u JOIN accounts a ON a.id = u.account_id
		WHERE u.account_id = ? AND u.id = ?`, accountID, userID).Scan(&userDoc, &accountDoc)
	if errors.Is(err, sql.ErrNoRows) {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "the user of the identity no longer exists")
	}
	if err != nil {
		return upstream.Caller{}, fmt.Errorf("sqlstore: identify user: %w", err)
	}
	var u upstream.User
	var a upstream.Account
	if err := json.Unmarshal(userDoc, &u); err != nil {
		return upstream.Caller{}, fmt.Errorf("sqlstore: decode user %s: %w", userID, err)
	}
	if err := json.Unmarshal(accountDoc, &a); err != nil {
		return upstream.Caller{}, fmt.Errorf("sqlstore: decode account %s: %w", accountID, err)
	}
	return callerOf(accountID, userID, &u, &a)
}

// identityFacts loads what the account knows of id in one query: the
// user it is bound to (if that user still exists), the user its e-mail
// names, and the subject of that user's identity of the same issuer.
func (s *Store) identityFacts(ctx context.Context, q querier, accountID string, id upstream.ProviderIdentity) (upstream.IdentityFacts, error) {
	var f upstream.IdentityFacts
	err := q.QueryRowContext(ctx, `
		SELECT
			COALESCE((SELECT i.user_id FROM identities i JOIN users b ON b.id = i.user_id
				WHERE i.account_id = ? AND b.account_id = ? AND i.issuer = ? AND i.subject = ?), ''),
			COALESCE((SELECT u.id FROM users u WHERE u.account_id = ? AND u.email = ?), ''),
			COALESCE((SELECT i.subject FROM identities i JOIN users u ON u.id = i.user_id
				WHERE i.account_id = ? AND u.account_id = ? AND i.issuer = ? AND u.email = ?), '')`,
		accountID, accountID, id.Issuer, id.Subject, accountID, id.Email, accountID, accountID, id.Issuer, id.Email).Scan(&f.BoundUser, &f.EmailUser, &f.EmailUserSubject)
	if err != nil {
		return f, fmt.Errorf("sqlstore: identity facts: %w", err)
	}
	return f, nil
}
