package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// MintToken issues a token for the user userID of any account, without a
// caller: it is an operator's command (okrgate token create) run on the
// database file, like SetAccountActive, not an API operation, so that a
// lost token can be replaced. The user must exist and be active; the
// store's token policy bounds the lifetime as for IssueToken. It returns
// the user's account id with the token.
func (s *Store) MintToken(ctx context.Context, userID string, in upstream.TokenInput) (accountID string, t upstream.NewToken, err error) {
	if !upstream.ValidID(userID) {
		return "", t, upstream.NotFound("user", userID)
	}
	err = s.tx(ctx, func(q querier) error {
		var raw []byte
		err := q.QueryRowContext(ctx, "/* all accounts: operator */ SELECT account_id, doc FROM users WHERE id = ?", userID).Scan(&accountID, &raw)
		if errors.Is(err, sql.ErrNoRows) {
			return upstream.NotFound("user", userID)
		}
		if err != nil {
			return fmt.Errorf("sqlstore: get user %s: %w", userID, err)
		}
		var u upstream.User
		if err := json.Unmarshal(raw, &u); err != nil {
			return fmt.Errorf("sqlstore: decode user %s: %w", userID, err)
		}
		if !u.IsActive {
			return upstream.Errorf(upstream.CodeConflict, "user %q is deactivated", userID)
		}
		t, err = s.insertToken(ctx, q, accountID, userID, in)
		return err
	})
	if err != nil {
		return "", upstream.NewToken{}, err
	}
	return accountID, t, nil
}
