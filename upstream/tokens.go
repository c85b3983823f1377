package upstream

import (
	"context"
	"slices"
	"strings"
	"time"
)

// API tokens are credentials: each has an expiry, may be limited to reading
// (scopes), records when it was last used, and can be listed and revoked by
// the user it belongs to. The rules here are pure; the store loads the facts
// (docs/authorization.md, "API tokens").

// Scope limits what a token may do. A token without the write scope is
// read-only: every write it attempts is refused with CodeInsufficientScope.
type Scope string

// The scopes of a token.
const (
	ScopeRead  Scope = "read"
	ScopeWrite Scope = "write"
)

// CodeInsufficientScope refuses a write made with a read-only token (403).
const CodeInsufficientScope Code = "insufficient_scope"

// Token lifetimes: the server default and the largest a client may ask for.
const (
	DefaultTokenTTL    = 90 * 24 * time.Hour
	DefaultTokenMaxTTL = 366 * 24 * time.Hour
	// LastUsedGranularity is how stale a token's lastUsedAt may get: it is
	// written at most once per this period per token, not on every request.
	LastUsedGranularity = time.Minute
	// MaxTokenNameLen bounds a token's name.
	MaxTokenNameLen = 100
)

// Token is an API token as its owner sees it. The secret is never part of
// it: only its hash is stored, and it is shown once, on creation (NewToken).
type Token struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	UserID    string `json:"userId"`
	CreatedAt string `json:"createdAt"`
	ExpiresAt string `json:"expiresAt"`
	// LastUsedAt is null for a token never used; it is updated at most once
	// per LastUsedGranularity.
	LastUsedAt *string `json:"lastUsedAt"`
	Scopes     []Scope `json:"scopes"`
}

// NewToken is a token just created, with its secret: the only time the
// secret is shown.
type NewToken struct {
	Token
	Secret string `json:"token"`
}

// TokenInput asks for a new token. Every field is optional: the default is an
// unnamed read-write token expiring after the server's default lifetime.
type TokenInput struct {
	Name string `json:"name,omitempty"`
	// ExpiresIn is the lifetime in seconds; ExpiresAt an RFC 3339 instant.
	// At most one of them may be given.
	ExpiresIn *int64  `json:"expiresIn,omitempty"`
	ExpiresAt string  `json:"expiresAt,omitempty"`
	Scopes    []Scope `json:"scopes,omitempty"`
}

// TokenPolicy holds the server's token lifetimes.
type TokenPolicy struct {
	DefaultTTL time.Duration // lifetime when the request names none
	MaxTTL     time.Duration // the longest lifetime a request may ask for
}

// DefaultTokenPolicy is 90 days by default, at most 366 days.
func DefaultTokenPolicy() TokenPolicy {
	return TokenPolicy{DefaultTTL: DefaultTokenTTL, MaxTTL: DefaultTokenMaxTTL}
}

// Validate reports a policy whose default exceeds its maximum or is not positive.
func (p TokenPolicy) Validate() error {
	if p.DefaultTTL <= 0 || p.MaxTTL <= 0 {
		return Errorf(CodeInvalid, "token lifetimes must be positive (default %s, maximum %s)", p.DefaultTTL, p.MaxTTL)
	}
	if p.DefaultTTL > p.MaxTTL {
		return Errorf(CodeInvalid, "the default token lifetime %s exceeds the maximum %s", p.DefaultTTL, p.MaxTTL)
	}
	return nil
}

// Expiry decides when a token created at now with input in expires: the
// requested instant or lifetime, else the policy's default; never later than
// now + MaxTTL and never in the past.
func (p TokenPolicy) Expiry(now time.Time, in TokenInput) (time.Time, error) {
	if in.ExpiresIn != nil && in.ExpiresAt != "" {
		return time.Time{}, Invalid("expiresIn", "give expiresIn or expiresAt, not both")
	}
	limit := now.Add(p.MaxTTL)
	switch {
	case in.ExpiresIn != nil:
		secs := *in.ExpiresIn
		if secs <= 0 {
			return time.Time{}, Invalid("expiresIn", "must be a positive number of seconds")
		}
		if secs > int64(p.MaxTTL/time.Second) {
			return time.Time{}, Invalid("expiresIn", "at most %d seconds (%s)", int64(p.MaxTTL/time.Second), p.MaxTTL)
		}
		return now.Add(time.Duration(secs) * time.Second), nil
	case in.ExpiresAt != "":
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(in.ExpiresAt))
		if err != nil {
			return time.Time{}, Invalid("expiresAt", "%q is not an RFC 3339 timestamp", in.ExpiresAt)
		}
		if !t.After(now) {
			return time.Time{}, Invalid("expiresAt", "must be in the future")
		}
		if t.After(limit) {
			return time.Time{}, Invalid("expiresAt", "at most %s from now", p.MaxTTL)
		}
		return t, nil
	}
	return now.Add(p.DefaultTTL), nil
}

// NormalizeScopes validates requested scopes and returns them sorted and
// without duplicates. None means read and write; write implies read.
func NormalizeScopes(in []Scope) ([]Scope, error) {
	if len(in) == 0 {
		return []Scope{ScopeRead, ScopeWrite}, nil
	}
	out := []Scope{ScopeRead}
	for _, s := range in {
		switch s {
		case ScopeRead:
		case ScopeWrite:
			if !slices.Contains(out, ScopeWrite) {
				out = append(out, ScopeWrite)
			}
		default:
			return nil, Invalid("scopes", "unknown scope %q (known: read, write)", s)
		}
	}
	return out, nil
}

// ValidateTokenName trims a token's name and checks its length.
func ValidateTokenName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if len(name) > MaxTokenNameLen {
		return "", Invalid("name", "at most %d bytes", MaxTokenNameLen)
	}
	return name, nil
}

// TokenUsable decides whether a token expiring at expiresAt (TimeLayout;
// empty = never) may authenticate at now.
func TokenUsable(now time.Time, expiresAt string) error {
	if expiresAt == "" {
		return nil
	}
	t, err := time.Parse(TimeLayout, expiresAt)
	if err != nil || !now.Before(t) {
		return Errorf(CodeUnauthenticated, "token expired")
	}
	return nil
}

// LastUsedStale reports whether a token last used at lastUsed (TimeLayout;
// empty = never) should have its lastUsedAt written at now.
func LastUsedStale(now time.Time, lastUsed string) bool {
	if lastUsed == "" {
		return true
	}
	t, err := time.Parse(TimeLayout, lastUsed)
	return err != nil || now.Sub(t) >= LastUsedGranularity
}

// MintFacts are what the minting rule needs to know, loaded by the store.
type MintFacts struct {
	// TargetUserID is the user the token is for.
	TargetUserID string
	// TargetActive is false for a deactivated user.
	TargetActive bool
	// CallerRights are the caller's account-wide rights.
	CallerRights Rights
	// TargetRights are the target user's (loaded for another user only).
	TargetRights Rights
}

// MayMintToken decides who may create a token for whom: a user for
// themselves; a caller with users:manage for another user who is not
// privileged (Rights.Privileged: neither an admin, nor admin in all but
// name, nor a holder of users, teams, roles or permissions management — a
// service user, a member, a viewer) and, unless the caller is an admin,
// who holds nothing the caller does not. Nobody mints for a privileged
// user: that would let one act as another who may change who holds what,
// with no trace of who did it; and a token for someone holding more would
// give its minter more than it holds.
func MayMintToken(c Caller, f MintFacts) error {
	if err := c.CheckWrite(); err != nil {
		return err
	}
	if f.TargetUserID != c.UserID {
		if !f.CallerRights.Holds(UsersManage) {
			return Errorf(CodeForbidden, "only the user or an admin may create a token for user %q", f.TargetUserID)
		}
		if f.TargetRights.Privileged() {
			return Errorf(CodeForbidden, "user %q is privileged (holds %s): only they may create their tokens",
				f.TargetUserID, f.TargetRights.privileges())
		}
		if miss := f.TargetRights.Missing(f.CallerRights); len(miss) > 0 {
			return Errorf(CodeForbidden, "user %q holds %s, which you do not: only an admin may create their tokens",
				f.TargetUserID, strings.Join(miss, ", "))
		}
	}
	if !f.TargetActive {
		return Errorf(CodeConflict, "user %q is deactivated", f.TargetUserID)
	}
	return nil
}

// MayRevokeToken decides whether the caller may revoke a token of owner: its
// own tokens only. Another user's token is not found, so that token ids of
// others are not revealed.
func MayRevokeToken(c Caller, tokenID, owner string) error {
	if err := c.CheckWrite(); err != nil {
		return err
	}
	if owner != c.UserID {
		return NotFound("token", tokenID)
	}
	return nil
}

// ReadOnly reports whether the caller's token lacks the write scope.
// Callers built in-process (no scopes) are unrestricted.
func (c Caller) ReadOnly() bool {
	return len(c.Scopes) > 0 && !slices.Contains(c.Scopes, ScopeWrite)
}

// CheckWrite refuses a write for a read-only token.
func (c Caller) CheckWrite() error {
	if c.ReadOnly() {
		return Errorf(CodeInsufficientScope, "this token is read-only: it has no %q scope", ScopeWrite)
	}
	return nil
}

// CheckWrite refuses a write when ctx carries a read-only caller; a context
// without a caller passes (in-process administration).
func CheckWrite(ctx context.Context) error {
	c, ok := CallerFrom(ctx)
	if !ok {
		return nil
	}
	return c.CheckWrite()
}

// TokenService serves API tokens.
type TokenService interface {
	// IssueToken creates a token for userID (the caller's own when empty),
	// under the minting rule (MayMintToken). The secret is in the result only.
	IssueToken(ctx context.Context, userID string, in TokenInput) (NewToken, error)
	// ListTokens lists the caller's own tokens, expired ones included,
	// newest first, without their secrets.
	ListTokens(ctx context.Context) ([]Token, error)
	// RevokeToken deletes one of the caller's own tokens; it stops working at once.
	RevokeToken(ctx context.Context, id string) error
}
