package main

import (
	"context"
	"errors"
	"flag"
	"strings"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/authn"
)

// oidcFlags are serve's settings for sign-in with an identity provider
// (docs/authorization.md, "Sign-in with an identity provider"): bearer
// tokens that are OpenID Connect / JWT access tokens of the listed issuers
// are accepted beside API tokens.
type oidcFlags struct {
	issuers, audience, algorithms string
	skew                          time.Duration
	userClaim, accountClaim       string
	allowUnverifiedEmail          bool
	keyRefetch                    time.Duration
	groupsClaim                   string
	read, write                   string
}

func addOIDCFlags(fs *flag.FlagSet) *oidcFlags {
	o := &oidcFlags{}
	fs.StringVar(&o.issuers, "oidc-issuer", "", "comma-separated issuer `URLs` whose OIDC/JWT access tokens are accepted as bearer tokens (discovered at start); none by default")
	fs.StringVar(&o.audience, "oidc-audience", "", "the audience (aud) an identity token must be issued for; required with --oidc-issuer")
	fs.StringVar(&o.algorithms, "oidc-algorithms", strings.Join(authn.DefaultAlgorithms(), ","), "comma-separated signature `algorithms` accepted (none and HS* are never)")
	fs.DurationVar(&o.skew, "oidc-clock-skew", authn.DefaultClockSkew, "how long after its expiry an identity token is still accepted (clocks differ)")
	fs.StringVar(&o.userClaim, "oidc-user-claim", authn.DefaultUserClaim, "the `claim` whose value is the e-mail of the user of the account a token acts as (matched against e-mails only; the identity is bound to that user at its first sign-in)")
	fs.BoolVar(&o.allowUnverifiedEmail, "oidc-allow-unverified-email", false, "accept an email user claim without email_verified true (for providers that never send it and verify every e-mail they issue)")
	fs.DurationVar(&o.keyRefetch, "oidc-jwks-refetch", authn.DefaultKeyRefetch, "the least time between two fetches of an issuer's keys for a key id not cached")
	fs.StringVar(&o.accountClaim, "oidc-account-claim", "", "the `claim` holding the account id (a string, or an array of one); a token without it is refused, and the service-accountId header may only agree; without this flag the header names the account")
	fs.StringVar(&o.groupsClaim, "oidc-groups-claim", authn.DefaultGroupsClaim, "the `claim` holding the user's groups, which grant access as scopes do")
	fs.StringVar(&o.read, "oidc-read", authn.DefaultReadValue, "comma-separated scopes or groups that grant reading")
	fs.StringVar(&o.write, "oidc-write", authn.DefaultWriteValue, "comma-separated scopes or groups that grant reading and writing")
	return o
}

// errOIDCGateway refuses --oidc-issuer in gateway mode: the users are the
// upstream's, which verifies the tokens the gateway forwards.
var errOIDCGateway = errors.New("--oidc-issuer needs a local database; in gateway mode configure it on the upstream, which receives the bearer tokens as they are")

// authenticator builds the one authentication middleware of both facades:
// API tokens resolved by be's API, and, when issuers are configured,
// identity tokens verified against them whose users the store finds.
func (o *oidcFlags) authenticator(ctx context.Context, be *backend, tokens upstream.AuthService) (*authn.Authenticator, error) {
	issuers := commaList(o.issuers)
	if len(issuers) == 0 {
		return authn.New(tokens, nil), nil
	}
	if be.store == nil {
		return nil, errOIDCGateway
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := authn.NewOIDC(dctx, authn.OIDCConfig{
		Issuers: issuers, Audience: o.audience, Algorithms: commaList(o.algorithms), ClockSkew: o.skew,
		UserClaim: o.userClaim, AllowUnverifiedEmail: o.allowUnverifiedEmail, KeyRefetch: o.keyRefetch,
		AccountClaim: o.accountClaim, GroupsClaim: o.groupsClaim,
		ReadValues: commaList(o.read), WriteValues: commaList(o.write),
	}, be.store)
	if err != nil {
		return nil, err
	}
	return authn.New(tokens, v), nil
}

// commaList splits a comma-separated flag value, dropping empty items.
func commaList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
