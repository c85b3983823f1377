package authn

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/hashicorp/golang-lru/v2/expirable"

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

// Directory finds the user that a verified identity names: the user of
// the account whose email (or id) is the value of the identity claim.
// sqlstore.Store implements it.
type Directory interface {
	IdentifyUser(ctx context.Context, accountID, value string) (upstream.Caller, error)
}

// OIDCConfig configures sign-in with OpenID Connect / JWT access tokens.
type OIDCConfig struct {
	// Issuers are the issuer URLs whose tokens are accepted; each is
	// discovered (/.well-known/openid-configuration) at start, and its
	// JWKS fetched, cached, and fetched again when a token names a key the
	// cache lacks (the issuer rotated its keys).
	Issuers []string
	// Audience is the audience a token must be issued for (its aud claim
	// must contain it). Required.
	Audience string
	// Algorithms are the accepted signature algorithms; DefaultAlgorithms().
	Algorithms []string
	// ClockSkew is how long after its exp claim a token is still
	// accepted; DefaultClockSkew. Negative means none.
	ClockSkew time.Duration
	// UserClaim names the claim whose value is the email (or id) of the
	// user the token acts for; DefaultUserClaim.
	UserClaim string
	// AccountClaim names the claim holding the account id. Without one
	// (or when the token lacks it), the account header chooses it.
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
	// accounts remembers, by token hash, the account an identity token
	// without an account claim was presented for with the account
	// header, so that a stream opened with it re-authenticates in that
	// account (Authenticator.Authenticate has no header). Entries live
	// no longer than the longest a token does here.
	accounts *expirable.LRU[[sha256.Size]byte, string]
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
	if cfg.Client != nil {
		ctx = oidc.ClientContext(ctx, cfg.Client)
	}
	o := &OIDC{cfg: cfg, verifiers: map[string]*oidc.IDTokenVerifier{}, users: users,
		accounts: expirable.NewLRU[[sha256.Size]byte, string](10_000, nil, 24*time.Hour)}
	skew := cfg.ClockSkew
	for _, iss := range cfg.Issuers {
		p, err := oidc.NewProvider(ctx, iss)
		if err != nil {
			return nil, fmt.Errorf("authn: discover OIDC issuer %s: %w", iss, err)
		}
		// The key set outlives ctx: it is fetched again on rotation.
		keyCtx := context.WithoutCancel(ctx)
		o.verifiers[iss] = p.VerifierContext(keyCtx, &oidc.Config{
			ClientID:             cfg.Audience,
			SupportedSigningAlgs: cfg.Algorithms,
			// The expiry is checked against a clock set back by the skew.
			Now: func() time.Time { return time.Now().Add(-skew) },
		})
	}
	return o, nil
}

// Authenticate verifies the identity token and returns the caller it acts
// as: the user of the account (the token's account claim, else acct, else
// the account it was last presented for) named by its user claim, with
// the scopes its scopes or groups grant.
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
		if strings.Contains(err.Error(), "fetching keys") {
			// The provider's key set could not be fetched (a key id not
			// cached yet): the provider failed, not the token.
			return upstream.Caller{}, &upstream.Error{Code: upstream.CodeUnavailable, Message: "the identity provider's keys could not be fetched", Err: err}
		}
		return upstream.Caller{}, &upstream.Error{Code: upstream.CodeUnauthenticated, Message: "the token could not be verified: " + verifyReason(err), Err: err}
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "the token's claims do not decode")
	}
	user, _ := claims[o.cfg.UserClaim].(string)
	if user == "" {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "the token has no %s claim naming its user", o.cfg.UserClaim)
	}
	scopes, err := o.scopes(claims)
	if err != nil {
		return upstream.Caller{}, err
	}
	key := sha256.Sum256([]byte(token))
	account := ""
	if o.cfg.AccountClaim != "" {
		account, _ = claims[o.cfg.AccountClaim].(string)
	}
	switch {
	case account != "":
	case acct != "":
		account = acct
	default:
		if account, ok = o.accounts.Get(key); !ok {
			return upstream.Caller{}, upstream.Errorf(upstream.CodeAccountHeader, "the token names no account: send the %s header", AccountHeader)
		}
	}
	c, err := o.users.IdentifyUser(ctx, account, user)
	if err != nil {
		return upstream.Caller{}, err
	}
	if acct != "" {
		o.accounts.Add(key, acct)
	}
	c.Token = token
	c.Scopes = scopes
	return c, nil
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
