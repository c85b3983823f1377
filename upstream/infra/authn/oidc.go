package authn

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/okrgate/okrgate/upstream"
)

// Defaults of OIDCConfig.
const (
	DefaultClockSkew   = 30 * time.Second
	DefaultUserClaim   = "email"
	DefaultGroupsClaim = "groups"
	DefaultReadValue   = "okrgate:read"
	DefaultWriteValue  = "okrgate:write"
)

// DefaultAlgorithms returns the signature algorithms accepted by default:
// the asymmetric ones of RFC 7518. "none" and the HMAC algorithms (whose
// key is the verifier's own secret) are never accepted.
func DefaultAlgorithms() []string {
	return []string{oidc.RS256, oidc.RS384, oidc.RS512, oidc.ES256, oidc.ES384, oidc.ES512, oidc.PS256, oidc.PS384, oidc.PS512, oidc.EdDSA}
}

// Directory finds the user that a verified identity names in an account:
// the user the identity (issuer and subject) is bound to, else the user
// whose e-mail its user claim names, then bound to it
// (upstream.BindIdentity). sqlstore.Store implements it.
type Directory interface {
	IdentifyUser(ctx context.Context, accountID string, id upstream.ProviderIdentity) (upstream.Caller, error)
}

// OIDCConfig configures sign-in with OpenID Connect / JWT access tokens.
type OIDCConfig struct {
	// Issuers are the issuer URLs whose tokens are accepted; each is
	// discovered (/.well-known/openid-configuration) at start, and its
	// JWKS fetched, cached, and fetched again when a token names a key the
	// cache lacks (the issuer rotated its keys) — at most once per
	// KeyRefetch.
	Issuers []string
	// KeyRefetch is the least time between two fetches of an issuer's
	// keys; DefaultKeyRefetch. Negative means no limit.
	KeyRefetch time.Duration
	// Audience is the audience a token must be issued for (its aud claim
	// must contain it). Required.
	Audience string
	// Algorithms are the accepted signature algorithms; DefaultAlgorithms().
	Algorithms []string
	// ClockSkew is how long after its exp claim a token is still
	// accepted, and how far in the future its iat and nbf may be;
	// DefaultClockSkew. Negative means none.
	ClockSkew time.Duration
	// UserClaim names the claim whose value is the e-mail of the user the
	// token acts for, matched against users' e-mails only;
	// DefaultUserClaim. When it is "email", the token's email_verified
	// must be true, unless AllowUnverifiedEmail.
	UserClaim string
	// AllowUnverifiedEmail accepts an email user claim without
	// email_verified true: for providers that never send it and verify
	// every e-mail they issue.
	AllowUnverifiedEmail bool
	// AccountClaim names the claim holding the account id: a string, or
	// an array of exactly one. A token without a usable value is
	// refused; the account header may only agree with it. Without an
	// AccountClaim, the account header (or a live connection's account)
	// chooses the account.
	AccountClaim string
	// GroupsClaim names the claim holding the groups the user belongs
	// to; DefaultGroupsClaim. Its values count as scopes do.
	GroupsClaim string
	// ReadValues and WriteValues are the scopes (scope or scp claim) or
	// groups that grant reading, and reading and writing:
	// DefaultReadValue and DefaultWriteValue. A token with none of them
	// is refused.
	ReadValues, WriteValues []string
	// Client fetches discovery documents and keys; http.DefaultClient.
	Client *http.Client
}

// OIDC verifies identity tokens and maps them to callers.
type OIDC struct {
	cfg       OIDCConfig
	verifiers map[string]*oidc.IDTokenVerifier // by issuer
	users     Directory
	now       func() time.Time
}

// NewOIDC discovers each issuer of cfg and returns the verifier of their
// tokens, whose users users finds. It fails when an issuer cannot be
// discovered or cfg is incomplete.
func NewOIDC(ctx context.Context, cfg OIDCConfig, users Directory) (*OIDC, error) {
	if len(cfg.Issuers) == 0 {
		return nil, errors.New("authn: no OIDC issuer")
	}
	if cfg.Audience == "" {
		return nil, errors.New("authn: an OIDC audience is required (the aud a token must carry)")
	}
	if users == nil {
		return nil, errors.New("authn: OIDC sign-in needs a user directory (a store)")
	}
	if len(cfg.Algorithms) == 0 {
		cfg.Algorithms = DefaultAlgorithms()
	}
	for _, alg := range cfg.Algorithms {
		if strings.EqualFold(alg, "none") || strings.HasPrefix(strings.ToUpper(alg), "HS") {
			return nil, fmt.Errorf("authn: the signature algorithm %q is not accepted", alg)
		}
	}
	if cfg.ClockSkew == 0 {
		cfg.ClockSkew = DefaultClockSkew
	}
	if cfg.ClockSkew < 0 {
		cfg.ClockSkew = 0
	}
	if cfg.UserClaim == "" {
		cfg.UserClaim = DefaultUserClaim
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = DefaultGroupsClaim
	}
	if len(cfg.ReadValues) == 0 {
		cfg.ReadValues = []string{DefaultReadValue}
	}
	if len(cfg.WriteValues) == 0 {
		cfg.WriteValues = []string{DefaultWriteValue}
	}
	if cfg.KeyRefetch == 0 {
		cfg.KeyRefetch = DefaultKeyRefetch
	}
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	ctx = oidc.ClientContext(ctx, cfg.Client)
	o := &OIDC{cfg: cfg, verifiers: map[string]*oidc.IDTokenVerifier{}, users: users, now: time.Now}
	skew := cfg.ClockSkew
	for _, iss := range cfg.Issuers {
		p, err := oidc.NewProvider(ctx, iss)
		if err != nil {
			return nil, fmt.Errorf("authn: discover OIDC issuer %s: %w", iss, err)
		}
		var meta struct {
			JWKS string `json:"jwks_uri"`
		}
		if err := p.Claims(&meta); err != nil || meta.JWKS == "" {
			return nil, fmt.Errorf("authn: OIDC issuer %s names no jwks_uri", iss)
		}
		keys := newKeySet(meta.JWKS, cfg.Client, cfg.Algorithms, cfg.KeyRefetch)
		o.verifiers[iss] = oidc.NewVerifier(iss, keys, &oidc.Config{
			ClientID:             cfg.Audience,
			SupportedSigningAlgs: cfg.Algorithms,
			// The expiry is checked against a clock set back by the skew.
			Now: func() time.Time { return time.Now().Add(-skew) },
		})
	}
	return o, nil
}

// Authenticate verifies the identity token and returns the caller it acts
// as in account acct ("" when the request or connection names none): the
// user its identity (issuer and subject) is bound to, else the one whose
// e-mail its user claim names, in the account of its account claim (which
// acct may only agree with) or else acct; with the scopes its scopes or
// groups grant.
func (o *OIDC) Authenticate(ctx context.Context, token, acct string) (upstream.Caller, error) {
	iss, err := unverifiedIssuer(token)
	if err != nil {
		return upstream.Caller{}, err
	}
	v, ok := o.verifiers[iss]
	if !ok {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "the token's issuer is not trusted here")
	}
	idt, err := v.Verify(ctx, token)
	if err != nil {
		var expired *oidc.TokenExpiredError
		if errors.As(err, &expired) {
			return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "the token expired at %s", expired.Expiry.UTC().Format(time.RFC3339))
		}
		if strings.Contains(err.Error(), errKeysUnavailable.Error()) {
			// The provider's key set could not be fetched (a key id not
			// cached yet): the provider failed, not the token.
			return upstream.Caller{}, &upstream.Error{Code: upstream.CodeUnavailable, Message: errKeysUnavailable.Error(), Err: err}
		}
		return upstream.Caller{}, &upstream.Error{Code: upstream.CodeUnauthenticated, Message: "the token could not be verified: " + verifyReason(err), Err: err}
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "the token's claims do not decode")
	}
	if err := o.checkTimes(claims); err != nil {
		return upstream.Caller{}, err
	}
	id, err := o.identity(idt, claims)
	if err != nil {
		return upstream.Caller{}, err
	}
	scopes, err := o.scopes(claims)
	if err != nil {
		return upstream.Caller{}, err
	}
	account, err := o.account(claims, acct)
	if err != nil {
		return upstream.Caller{}, err
	}
	c, err := o.users.IdentifyUser(ctx, account, id)
	if err != nil {
		return upstream.Caller{}, err
	}
	c.Token = token
	c.Scopes = scopes
	return c, nil
}

// checkTimes refuses a token whose exp, nbf or iat is not a number
// (NumericDate, RFC 7519; the verifier reads "1700000000" as one), whose
// exp is missing, or whose iat or nbf is later than now by more than the
// clock skew (the verifier checks exp, and nbf with a leeway of minutes).
func (o *OIDC) checkTimes(claims map[string]any) error {
	now := o.now()
	for _, name := range []string{"exp", "nbf", "iat"} {
		v, ok := claims[name]
		if !ok {
			if name == "exp" {
				return upstream.Errorf(upstream.CodeUnauthenticated, "the token has no exp claim")
			}
			continue
		}
		n, ok := v.(float64)
		if !ok {
			return upstream.Errorf(upstream.CodeUnauthenticated, "the token's %s claim is not a number (a NumericDate)", name)
		}
		at := time.Unix(int64(n), 0)
		if name != "exp" && at.After(now.Add(o.cfg.ClockSkew)) {
			return upstream.Errorf(upstream.CodeUnauthenticated, "the token's %s claim is in the future (%s)", name, at.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// identity returns the identity the token names: its issuer, its subject,
// and the e-mail of its user claim, which when it is the email claim must
// be verified (email_verified true) unless AllowUnverifiedEmail.
func (o *OIDC) identity(idt *oidc.IDToken, claims map[string]any) (upstream.ProviderIdentity, error) {
	email, _ := claims[o.cfg.UserClaim].(string)
	if email == "" {
		return upstream.ProviderIdentity{}, upstream.Errorf(upstream.CodeUnauthenticated, "the token has no %s claim naming its user", o.cfg.UserClaim)
	}
	if idt.Subject == "" {
		return upstream.ProviderIdentity{}, upstream.Errorf(upstream.CodeUnauthenticated, "the token has no sub claim naming its subject")
	}
	if o.cfg.UserClaim == "email" && !o.cfg.AllowUnverifiedEmail {
		if verified, _ := claims["email_verified"].(bool); !verified {
			return upstream.ProviderIdentity{}, upstream.Errorf(upstream.CodeUnauthenticated, "the token's e-mail is not verified (email_verified is not true)")
		}
	}
	return upstream.ProviderIdentity{Issuer: idt.Issuer, Subject: idt.Subject, Email: email}, nil
}

// account returns the account the token acts in: the value of its account
// claim — a string, or an array of exactly one string — which acct (the
// header's, or a live connection's) may only agree with; without an
// account claim configured, acct.
func (o *OIDC) account(claims map[string]any, acct string) (string, error) {
	if o.cfg.AccountClaim == "" {
		if acct == "" {
			return "", upstream.Errorf(upstream.CodeAccountHeader, "the token names no account: send the %s header", AccountHeader)
		}
		return acct, nil
	}
	var account string
	switch v := claims[o.cfg.AccountClaim].(type) {
	case string:
		account = v
	case []any:
		if len(v) == 1 {
			account, _ = v[0].(string)
		}
	}
	if strings.TrimSpace(account) == "" {
		return "", upstream.Errorf(upstream.CodeUnauthenticated, "the token's %s claim names no account (a string, or an array of one)", o.cfg.AccountClaim)
	}
	if acct != "" && acct != account {
		return "", upstream.Errorf(upstream.CodeForbidden, "the %s header does not name the account of the token", AccountHeader)
	}
	return account, nil
}

// scopes maps the token's scopes (scope or scp) and groups to okrgate's:
// read and write, read only, or a refusal when they grant neither.
func (o *OIDC) scopes(claims map[string]any) ([]upstream.Scope, error) {
	var have []string
	for _, name := range []string{"scope", "scp", o.cfg.GroupsClaim} {
		switch v := claims[name].(type) {
		case string:
			have = append(have, strings.Fields(v)...)
		case []any:
			for _, s := range v {
				if s, ok := s.(string); ok {
					have = append(have, s)
				}
			}
		}
	}
	grants := func(values []string) bool {
		return slices.ContainsFunc(have, func(s string) bool { return slices.Contains(values, s) })
	}
	switch {
	case grants(o.cfg.WriteValues):
		return []upstream.Scope{upstream.ScopeRead, upstream.ScopeWrite}, nil
	case grants(o.cfg.ReadValues):
		return []upstream.Scope{upstream.ScopeRead}, nil
	}
	return nil, upstream.Errorf(upstream.CodeForbidden, "the token grants neither reading nor writing: it needs the scope or group %s or %s",
		strings.Join(o.cfg.ReadValues, ", "), strings.Join(o.cfg.WriteValues, ", "))
}

// unverifiedIssuer reads the iss claim of a compact JWT without verifying
// it, to choose the verifier that then checks everything, iss included.
func unverifiedIssuer(token string) (string, error) {
	parts := strings.Split(token, ".")
	bad := upstream.Errorf(upstream.CodeUnauthenticated, "the token is not a well-formed JWT")
	if len(parts) != 3 {
		return "", bad
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", bad
	}
	var c struct {
		Iss string `json:"iss"`
	}
	if err := json.Unmarshal(payload, &c); err != nil || c.Iss == "" {
		return "", bad
	}
	return c.Iss, nil
}

// verifyReason is the client-safe reason a verification failed: the
// verifier's message without its "oidc: " prefix.
func verifyReason(err error) string {
	msg := strings.TrimPrefix(err.Error(), "oidc: ")
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return msg
}
