package sqlstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	fastjson "github.com/goccy/go-json"

	"github.com/okrgate/okrgate/upstream"
)

// AuthenticateMany authenticates tokens at once (upstream.AuthService):
// each distinct token is decided exactly as Authenticate decides it —
// unknown, expired, a deactivated user, a suspended account — from one
// read of their accounts and one read of each account's tokens, and the
// lastUsedAt of those whose record is stale is written by one statement
// per account. Each account's and user's document is decoded once however
// many tokens name it.
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
	// The tokens' accounts first, as in Authenticate, then each account's
	// tokens with their users and account, on the account's shard.
	q := s.read()
	byAccount, err := tokenAccounts(ctx, q, hashes)
	if err != nil {
		return nil, err
	}
	now := s.now()
	decided := make(map[string]upstream.Authentication, len(hashes))
	accountDocs := map[string]*upstream.Account{}
	userDocs := map[string]*upstream.User{}
	stale := map[string][]string{} // account: hashes of tokens whose use is to be recorded
	for _, accountID := range slices.Sorted(maps.Keys(byAccount)) {
		rows, err := readTokens(ctx, q, accountID, byAccount[accountID])
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			c, touch, err := decideToken(now, tokens[at[r.hash][0]], accountID, r.userID, r.tokenID, r.scopes, r.expires, r.lastUsed,
				func() (*upstream.User, error) { return decodeOnce(userDocs, accountID+"/"+r.userID, r.userDoc, "user") },
				func() (*upstream.Account, error) { return decodeOnce(accountDocs, accountID, r.accountDoc, "account") })
			decided[r.hash] = upstream.Authentication{Caller: c, Err: err}
			if touch {
				stale[accountID] = append(stale[accountID], r.hash)
			}
		}
	}
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

// tokenAccounts returns the hashes of the known tokens among hashes by
// their account, from the table shared by every account.
func tokenAccounts(ctx context.Context, q querier, hashes []string) (map[string][]string, error) {
	rows, err := q.QueryContext(ctx, "SELECT hash, account_id FROM token_accounts WHERE hash IN "+idList, idsParam(hashes))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: authenticate: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var hash, account string
		if err := rows.Scan(&hash, &account); err != nil {
			return nil, fmt.Errorf("sqlstore: authenticate: %w", err)
		}
		out[account] = append(out[account], hash)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: authenticate: %w", err)
	}
	return out, nil
}

// userAuthFacts and accountAuthFacts are what deciding a token reads of
// its user (u) and its account (a), as JSON documents of those fields
// alone (callerOf reads nothing else): not the whole documents, which
// PostgreSQL renders as text and the store decodes, a thousand of each
// for a batch of a thousand subscribers' tokens (docs/decisions/live-updates.md,
// "What a live batch reads").
const (
	userAuthFacts    = "json_object('isActive', u.doc -> 'isActive', 'roles', u.doc -> 'roles')"
	accountAuthFacts = "json_object('isActive', a.doc -> 'isActive')"
)

// tokenRow is a token as authentication reads it, with what deciding it
// reads of its user and its account (userAuthFacts, accountAuthFacts).
type tokenRow struct {
	hash, userID, tokenID, scopes, expires, lastUsed string
	userDoc, accountDoc                              []byte
}

// readTokens reads the tokens of account among hashes: one read, on the
// account's shard.
func readTokens(ctx context.Context, q querier, account string, hashes []string) ([]tokenRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT t.hash, t.user_id, t.id, t.scopes, t.expires, t.last_used, `+userAuthFacts+`, `+accountAuthFacts+`
		FROM tokens t JOIN users u ON u.account_id = t.account_id AND u.id = t.user_id JOIN accounts a ON a.id = t.account_id
		WHERE t.account_id = ? AND t.hash IN `+idList, account, idsParam(hashes))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: authenticate: %w", err)
	}
	defer rows.Close()
	var out []tokenRow
	for rows.Next() {
		var r tokenRow
		if err := rows.Scan(&r.hash, &r.userID, &r.tokenID, &r.scopes, &r.expires, &r.lastUsed, &r.userDoc, &r.accountDoc); err != nil {
			return nil, fmt.Errorf("sqlstore: authenticate: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: authenticate: %w", err)
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
	// The names are copied: the decoder points decoded strings into its
	// copy of the whole user document (detach.go), which a caller kept for
	// a connection's lifetime (a live subscriber's) would keep alive.
	roles := make([]string, 0, len(u.Roles))
	for _, r := range u.Roles {
		roles = append(roles, strings.Clone(r.Name))
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
