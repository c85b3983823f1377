package sqlstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// tokenPrefix marks okrgate tokens so that secret scanners can find leaked ones.
const tokenPrefix = "okr_"

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// The statements of Authenticate, prepared on SQLite's readers
// (readPathSQL): the token's account, then the token with what deciding it
// reads of its user and account.
const (
	tokenAccountSQL = "SELECT account_id FROM token_accounts WHERE hash = ?"
	tokenFactsSQL   = `SELECT t.user_id, t.id, t.scopes, t.expires, t.last_used, ` + userAuthFacts + `, ` + accountAuthFacts + `
		FROM tokens t JOIN users u ON u.account_id = t.account_id AND u.id = t.user_id JOIN accounts a ON a.id = t.account_id
		WHERE t.account_id = ? AND t.hash = ?`
	// tokenSQL is the two in one statement, one round trip where the
	// tokens of every account are in one table (PostgreSQL without Citus).
	tokenSQL = `/* all accounts: authentication */ SELECT ta.account_id, t.user_id, t.id, t.scopes, t.expires, t.last_used, ` + userAuthFacts + `, ` + accountAuthFacts + `
		FROM token_accounts ta JOIN tokens t ON t.account_id = ta.account_id AND t.hash = ta.hash
		JOIN users u ON u.account_id = t.account_id AND u.id = t.user_id JOIN accounts a ON a.id = t.account_id
		WHERE ta.hash = ?`
)

// Authenticate resolves a bearer token to its user and account. An expired
// token is refused; a usable one has its lastUsedAt written at most once per
// upstream.LastUsedGranularity.
func (s *Store) Authenticate(ctx context.Context, token string) (upstream.Caller, error) {
	if token == "" || len(token) > 256 {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "invalid token")
	}
	hash := hashToken(token)
	// The token's account first, from the table shared by every account
	// (on Citus a reference table, read on one node), then the token, its
	// user and its account on the account's shard; elsewhere both at once
	// (a round trip less: a database far away costs a request as many
	// times its distance as it makes round trips).
	q := s.readPrepared()
	var accountID, userID, tokenID, scopes, expires, lastUsed string
	var userDoc, accountDoc []byte
	var err error
	if s.pg != nil && !s.pg.citus {
		err = q.QueryRowContext(ctx, tokenSQL, hash).Scan(&accountID, &userID, &tokenID, &scopes, &expires, &lastUsed, &userDoc, &accountDoc)
	} else {
		err = q.QueryRowContext(ctx, tokenAccountSQL, hash).Scan(&accountID)
		if err == nil {
			// No row now: revoked between the two reads.
			err = q.QueryRowContext(ctx, tokenFactsSQL, accountID, hash).Scan(&userID, &tokenID, &scopes, &expires, &lastUsed, &userDoc, &accountDoc)
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "invalid token")
	}
	if err != nil {
		return upstream.Caller{}, fmt.Errorf("sqlstore: authenticate: %w", err)
	}
	now := s.now()
	c, touch, err := decideToken(now, token, accountID, userID, tokenID, scopes, expires, lastUsed,
		func() (*upstream.User, error) {
			return decodeOnce(map[string]*upstream.User{}, userID, userDoc, "user")
		},
		func() (*upstream.Account, error) {
			return decodeOnce(map[string]*upstream.Account{}, accountID, accountDoc, "account")
		})
	if err != nil {
		return upstream.Caller{}, err
	}
	if touch {
		if err := s.touchToken(ctx, accountID, hash, now); err != nil {
			return upstream.Caller{}, err
		}
	}
	return c, nil
}

// BootstrapInput names a new account and its first (admin) user.
type BootstrapInput struct {
	AccountName string
	Email       string
	FirstName   string
	LastName    string
}

// BootstrapResult identifies what Bootstrap created. Token is shown once;
// only its hash is stored.
type BootstrapResult struct {
	AccountID string `json:"accountId"`
	UserID    string `json:"userId"`
	Token     string `json:"token"`
}

// Bootstrap creates an account with an admin user and an API token for it.
func (s *Store) Bootstrap(ctx context.Context, in BootstrapInput) (BootstrapResult, error) {
	in.AccountName = strings.TrimSpace(in.AccountName)
	if in.AccountName == "" {
		return BootstrapResult{}, upstream.Invalid("account", "must not be empty")
	}
	if _, err := mail.ParseAddress(in.Email); err != nil || strings.ContainsAny(in.Email, "<> ") {
		return BootstrapResult{}, upstream.Invalid("email", "%q is not an email address", in.Email)
	}
	now := s.timestamp()
	acc := upstream.Account{
		ID: s.ids.New(), Name: in.AccountName, Domain: domainOf(in.AccountName), Language: "en",
		IsActive: true, DateCreated: now,
		ConfidenceSettings: upstream.ConfidenceSettings{ConfidenceType: "numeric", ConfidenceMapping: []upstream.ConfidenceMapping{
			{Color: "#e5484d", Name: "Low", Range: upstream.ConfidenceRange{From: 0, To: 3}},
			{Color: "#f5a623", Name: "Medium", Range: upstream.ConfidenceRange{From: 4, To: 6}},
			{Color: "#30a46c", Name: "High", Range: upstream.ConfidenceRange{From: 7, To: 10}},
		}},
		Edition:       upstream.Edition{Features: []string{}, Name: "self-hosted"},
		Subscriptions: []upstream.Subscription{},
	}
	res := BootstrapResult{AccountID: acc.ID}
	err := s.tx(ctx, func(q querier) error {
		doc, err := json.Marshal(acc)
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, "INSERT INTO accounts (id, doc) VALUES (?, ?)", acc.ID, string(doc)); err != nil {
			return fmt.Errorf("sqlstore: insert account: %w", err)
		}
		u, err := s.createUser(ctx, q, acc, UserInput{Email: in.Email, FirstName: in.FirstName, LastName: in.LastName, Role: "admin"}, "")
		if err != nil {
			return err
		}
		acc.OwnerID = u.ID
		doc, _ = json.Marshal(acc)
		if _, err := q.ExecContext(ctx, "UPDATE accounts SET doc = ? WHERE id = ?", string(doc), acc.ID); err != nil {
			return fmt.Errorf("sqlstore: update account: %w", err)
		}
		res.UserID = u.ID
		t, err := s.insertToken(ctx, q, acc.ID, u.ID, upstream.TokenInput{Name: "bootstrap"})
		res.Token = t.Secret
		return err
	})
	if err != nil {
		return BootstrapResult{}, err
	}
	return res, nil
}

func domainOf(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '_':
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// CreateToken issues a read-write API token with the default lifetime for a
// user of the caller's account, under the minting rule (IssueToken), and
// returns its secret.
func (s *Store) CreateToken(ctx context.Context, userID string) (string, error) {
	t, err := s.IssueToken(ctx, userID, upstream.TokenInput{})
	return t.Secret, err
}

// CreateUserToken issues an API token for a user; it is shown once.
func (s *Store) CreateUserToken(ctx context.Context, id string) (upstream.UserToken, error) {
	t, err := s.CreateToken(ctx, id)
	return upstream.UserToken{Token: t}, err
}

// UserInput creates a user (upstream.UserInput; Role names a built-in role
// for in-process callers).
type UserInput = upstream.UserInput

// CreateUser adds a user to the caller's account.
func (s *Store) CreateUser(ctx context.Context, in UserInput) (upstream.User, error) {
	var u upstream.User
	return writeAs(ctx, s, upstream.UsersManage, &u, func(q querier, c upstream.Caller) error {
		acc, err := s.account(ctx, q, c.AccountID)
		if err != nil {
			return err
		}
		if err := s.checkNewUser(ctx, q, c, in); err != nil {
			return err
		}
		u, err = s.createUser(ctx, q, acc, in, c.UserID)
		return err
	})
}

func (s *Store) account(ctx context.Context, q querier, id string) (upstream.Account, error) {
	var raw []byte
	err := q.QueryRowContext(ctx, "SELECT doc FROM accounts WHERE id = ?", id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return upstream.Account{}, upstream.NotFound("account", id)
	}
	if err != nil {
		return upstream.Account{}, fmt.Errorf("sqlstore: get account: %w", err)
	}
	var a upstream.Account
	if err := json.Unmarshal(raw, &a); err != nil {
		return upstream.Account{}, fmt.Errorf("sqlstore: decode account: %w", err)
	}
	return a, nil
}

func (s *Store) createUser(ctx context.Context, q querier, acc upstream.Account, in UserInput, createdBy string) (upstream.User, error) {
	email := strings.ToLower(strings.TrimSpace(in.Email))
	if _, err := mail.ParseAddress(email); err != nil || strings.ContainsAny(email, "<> ") {
		return upstream.User{}, upstream.Invalid("email", "%q is not an email address", in.Email)
	}
	roles, err := s.userRoles(ctx, q, acc.ID, in.Role, in.RoleIDs)
	if err != nil {
		return upstream.User{}, err
	}
	var exists int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM users WHERE account_id = ? AND email = ?", acc.ID, email).Scan(&exists); err != nil {
		return upstream.User{}, fmt.Errorf("sqlstore: check email: %w", err)
	}
	if exists > 0 {
		return upstream.User{}, upstream.Errorf(upstream.CodeConflict, "a user with email %q exists", email)
	}
	first, last := strings.TrimSpace(in.FirstName), strings.TrimSpace(in.LastName)
	if first == "" && last == "" {
		first = email[:strings.IndexByte(email, '@')]
	}
	now := s.timestamp()
	u := upstream.User{
		ID: s.ids.New(), AccountID: acc.ID, AccountDomain: acc.Domain, AccountName: acc.Name,
		CreatedByID: createdBy, DateCreated: now, DateInvited: now, InvitedBy: createdBy,
		Email: email, FirstName: first, LastName: last, Name: strings.TrimSpace(first + " " + last),
		Language: cmp.Or(strings.TrimSpace(in.Language), "en"), IsActive: true,
		Identities:           upstream.Identities{Items: []upstream.Identity{}},
		NotificationSettings: upstream.NotificationOptOuts{SubjectsOptedOut: []string{}},
		Permissions:          []string{},
		PictureInfo:          upstream.PictureInfo{CanEditPicture: true, IsActive: true},
		Roles:                roles,
		SubscriptionType:     "user",
		TeamIDs:              []string{},
		UserSettings:         map[string]any{},
	}
	if err := users.insert(ctx, q, acc.ID, &u); err != nil {
		return upstream.User{}, err
	}
	return u, nil
}

// ListUsers lists the users of the caller's account.
func (s *Store) ListUsers(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.User], error) {
	return listPage(ctx, s, listing[upstream.User]{action: upstream.UsersRead, table: users}, lq)
}

// GetUser returns one user of the caller's account.
func (s *Store) GetUser(ctx context.Context, id string) (upstream.User, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.User{}, err
	}
	q := s.read()
	u, err := users.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.User{}, err
	}
	if id != c.UserID {
		if err := s.authorize(ctx, q, c, upstream.UsersRead, nil); err != nil {
			return upstream.User{}, err
		}
	}
	return u, nil
}

// AccountCount returns the number of accounts in the database.
func (s *Store) AccountCount(ctx context.Context) (int, error) {
	var n int
	if err := s.read().QueryRowContext(ctx, "SELECT count(*) FROM accounts").Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlstore: count accounts: %w", err)
	}
	return n, nil
}

// Accounts returns every account in the database, oldest first: an
// operator's listing (okrgate account list), not an API operation, so that
// an account whose id was lost can be found again.
func (s *Store) Accounts(ctx context.Context) ([]upstream.Account, error) {
	rows, err := s.read().QueryContext(ctx, "/* all accounts: operator */ SELECT doc FROM accounts")
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list accounts: %w", err)
	}
	defer rows.Close()
	var out []upstream.Account
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("sqlstore: list accounts: %w", err)
		}
		var a upstream.Account
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("sqlstore: decode account: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: list accounts: %w", err)
	}
	slices.SortFunc(out, func(a, b upstream.Account) int {
		return cmp.Or(cmp.Compare(a.DateCreated, b.DateCreated), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// AccountOwner returns the id of the user who owns an account (its first admin).
func (s *Store) AccountOwner(ctx context.Context, accountID string) (string, error) {
	a, err := s.account(ctx, s.read(), accountID)
	if err != nil {
		return "", err
	}
	return a.OwnerID, nil
}

// SetAccountActive suspends (false) or resumes (true) an account. Every call
// made with a suspended account's tokens answers account_suspended (402).
// It is an operator's command, not an API operation.
func (s *Store) SetAccountActive(ctx context.Context, accountID string, active bool) error {
	return s.tx(ctx, func(q querier) error {
		a, err := s.account(ctx, q, accountID)
		if err != nil {
			return err
		}
		a.IsActive = active
		doc, err := json.Marshal(a)
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, "UPDATE accounts SET doc = ? WHERE id = ?", string(doc), accountID); err != nil {
			return fmt.Errorf("sqlstore: update account: %w", err)
		}
		return nil
	})
}
