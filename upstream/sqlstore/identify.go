package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// IdentifyUser returns the caller that the user of account accountID whose
// email (or id) is value acts as: the user a verified identity token names
// (package authn's OIDC sign-in). The caller has the user's roles and no
// token of its own. An unknown user or a deactivated one is
// unauthenticated; a suspended account is account_suspended, as for an API
// token (Authenticate).
func (s *Store) IdentifyUser(ctx context.Context, accountID, value string) (upstream.Caller, error) {
	if accountID == "" || value == "" {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "the identity names no user")
	}
	var userID string
	var userDoc, accountDoc []byte
	err := s.read().QueryRowContext(ctx, `
		SELECT u.id, u.doc, a.doc
		FROM users u JOIN accounts a ON a.id = u.account_id
		WHERE u.account_id = ? AND (u.email = ? OR u.id = ?)`, accountID, value, value).Scan(&userID, &userDoc, &accountDoc)
	if errors.Is(err, sql.ErrNoRows) {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "no user of the account has the identity %q", value)
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
