package sqlstore

import (
	"context"
	"fmt"
	"time"

	fastjson "github.com/goccy/go-json"

	"github.com/okrgate/okrgate/upstream"
)

// AuthenticateMany authenticates tokens at once (upstream.AuthService):
// each distinct token is decided exactly as Authenticate decides it —
// unknown, expired, a deactivated user, a suspended account — from one
// read of all of them, and the lastUsedAt of those whose record is stale
// is written by one statement per account. Each account's and user's
// document is decoded once however many tokens name it.
func (s *Store) AuthenticateMany(ctx context.Context, tokens []string) ([]upstream.Authentication, error) {
	out := make([]upstream.Authentication, len(tokens))
	at := map[string][]int{} // a token's hash: its positions in tokens
	var hashes []string
	for i, t := range tokens {
		if t == "" || len(t) > 256 {
			out[i].Err = upstream.Errorf(upstream.CodeUnauthenticated, "invalid token")
			continue
		}
		h := hashToken(t)
		if _, ok := at[h]; !ok {
			hashes = append(hashes, h)
		}
		at[h] = append(at[h], i)
	}
	if len(hashes) == 0 {
		return out, nil
	}
	// The one read that starts from no account, as in Authenticate: the
	// tokens name their accounts, and the joins keep to them.
	rows, err := s.read().QueryContext(ctx, `/* all accounts: authentication */
		SELECT t.hash, t.account_id, t.user_id, t.id, t.scopes, t.expires, t.last_used, u.doc, a.doc
		FROM tokens t JOIN users u ON u.id = t.user_id AND u.account_id = t.account_id JOIN accounts a ON a.id = t.account_id
		WHERE t.hash IN `+idList, idsParam(hashes))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: authenticate: %w", err)
	}
	defer rows.Close()
	now := s.now()
	decided := make(map[string]upstream.Authentication, len(hashes))
	accountDocs := map[string]*upstream.Account{}
	userDocs := map[string]*upstream.User{}
	stale := map[string][]string{} // account: hashes of tokens whose use is to be recorded
	for rows.Next() {
		var hash, accountID, userID, tokenID, scopes, expires, lastUsed string
		var userDoc, accountDoc []byte
		if err := rows.Scan(&hash, &accountID, &userID, &tokenID, &scopes, &expires, &lastUsed, &userDoc, &accountDoc); err != nil {
			return nil, fmt.Errorf("sqlstore: authenticate: %w", err)
		}
		token := tokens[at[hash][0]]
		c, touch, err := decideToken(now, token, accountID, userID, tokenID, scopes, expires, lastUsed,
			func() (*upstream.User, error) { return decodeOnce(userDocs, accountID+"/"+userID, userDoc, "user") },
			func() (*upstream.Account, error) { return decodeOnce(accountDocs, accountID, accountDoc, "account") })
		decided[hash] = upstream.Authentication{Caller: c, Err: err}
		if touch {
			stale[accountID] = append(stale[accountID], hash)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: authenticate: %w", err)
	}
	rows.Close()
	for account, hs := range stale {
		if err := s.touchTokens(ctx, account, hs, now); err != nil {
			for _, h := range hs {
				decided[h] = upstream.Authentication{Err: err}
			}
		}
	}
	for _, h := range hashes {
		a, ok := decided[h]
		if !ok {
			a.Err = upstream.Errorf(upstream.CodeUnauthenticated, "invalid token")
		}
		for _, i := range at[h] {
			out[i] = a
		}
	}
	return out, nil
}

// decideToken decides one token's row as Authenticate does, in the same
// order: expiry, then the user, then the account. touch reports that its
// use is to be recorded (upstream.LastUsedStale). The documents are
// decoded only when the decision needs them.
func decideToken(now time.Time, token, accountID, userID, tokenID, scopes, expires, lastUsed string,
	user func() (*upstream.User, error), account func() (*upstream.Account, error)) (c upstream.Caller, touch bool, err error) {
	if err := upstream.TokenUsable(now, expires); err != nil {
		return upstream.Caller{}, false, err
	}
	u, err := user()
	if err != nil {
		return upstream.Caller{}, false, err
	}
	a, err := account()
	if err != nil {
		return upstream.Caller{}, false, err
	}
	c, err = callerOf(accountID, userID, u, a)
	if err != nil {
		return upstream.Caller{}, false, err
	}
	c.Token, c.TokenID, c.Scopes = token, tokenID, parseScopes(scopes)
	return c, upstream.LastUsedStale(now, lastUsed), nil
}

// callerOf decides whether user u of account a may act at all, as every
// way of signing in decides it (an API token, an identity token): a
// deactivated user is unauthenticated, a suspended account is
// account_suspended. The caller it returns has the user's roles and no
// token.
func callerOf(accountID, userID string, u *upstream.User, a *upstream.Account) (upstream.Caller, error) {
	if !u.IsActive {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "user is deactivated")
	}
	if !a.IsActive {
		return upstream.Caller{}, upstream.Errorf(upstream.CodePaymentRequired, "account is suspended")
	}
	roles := make([]string, 0, len(u.Roles))
	for _, r := range u.Roles {
		roles = append(roles, r.Name)
	}
	return upstream.Caller{AccountID: accountID, UserID: userID, Roles: roles}, nil
}

// decodeOnce decodes doc into a T kept in seen under key, or returns the
// one decoded before.
func decodeOnce[T any](seen map[string]*T, key string, doc []byte, kind string) (*T, error) {
	if v, ok := seen[key]; ok {
		return v, nil
	}
	v := new(T)
	// The decoder of the store's reads (scanDocsN): a subscribers' batch
	// decodes the user of every distinct token, and encoding/json was half
	// of a live batch's authentication in a CPU profile.
	if err := fastjson.Unmarshal(doc, v); err != nil {
		return nil, fmt.Errorf("sqlstore: decode %s %s: %w", kind, key, err)
	}
	seen[key] = v
	return v, nil
}

// touchTokens records that the tokens of account with the given hashes
// were used at now: touchToken for many, in one statement, waiting for
// the writer at most touchTimeout.
func (s *Store) touchTokens(ctx context.Context, account string, hashes []string, now time.Time) error {
	tctx, cancel := context.WithTimeout(ctx, touchTimeout)
	defer cancel()
	stale := upstream.FormatTime(now.Add(-upstream.LastUsedGranularity))
	w := counted{q: s.w, d: s.d, n: &s.queries, trace: s.trace}
	_, err := w.ExecContext(tctx, "UPDATE tokens SET last_used = ? WHERE hash IN "+idList+" AND account_id = ? AND last_used <= ?",
		upstream.FormatTime(now), idsParam(hashes), account, stale)
	if err != nil && tctx.Err() == nil {
		return fmt.Errorf("sqlstore: record token use: %w", err)
	}
	return nil
}
