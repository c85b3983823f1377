// Package authn authenticates the requests of both facades, REST and
// GraphQL: it reads the bearer credential of a request — an okrgate API
// token, or an OpenID Connect / JWT access token of a configured issuer
// (oidc.go) — and the account header, and serves the next handler with the
// caller and a fresh request memo in its context. Its refusals are
// *upstream.Error values (unauthenticated, account_suspended, forbidden,
// account_header_missing) that each facade renders in its own shape: a
// problem body for REST, a GraphQL error for GraphQL.
//
// The binary builds one Authenticator and hands it to both facades; the
// live transports re-authenticate a connection's token in the account it
// was opened in through it (Authenticator is an upstream.CredentialAuth),
// so an identity token is checked again per event as an API token is, and
// a connection never changes account.
package authn

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// AccountHeader is the header that names the account a request acts in.
const AccountHeader = "service-accountId"

// AccountHeaderAlias is the account header's name on the real platform,
// which its public clients (its command-line client among them) send in
// various letter cases; it is accepted wherever AccountHeader is. HTTP
// header names are case-insensitive, so http.Header finds every spelling.
const AccountHeaderAlias = "gtmhub-accountId"

// Account returns the account the request r names in its account header
// (AccountHeader, else AccountHeaderAlias), or "" when it names none. It is
// the one place the header is read; only one header decides, so two headers
// naming different accounts cannot be played against each other.
func Account(r *http.Request) string {
	if acct := strings.TrimSpace(r.Header.Get(AccountHeader)); acct != "" {
		return acct
	}
	return strings.TrimSpace(r.Header.Get(AccountHeaderAlias))
}

// BearerToken returns the token of an "Authorization: Bearer <token>"
// header value h. The scheme is case-insensitive (RFC 9110).
func BearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// Authenticator turns a request's credentials into its caller.
type Authenticator struct {
	tokens upstream.AuthService // API tokens
	oidc   *OIDC                // identity tokens; nil when none are accepted
}

// New returns an Authenticator of API tokens resolved by tokens and, when
// oidc is not nil, of the identity tokens it verifies.
func New(tokens upstream.AuthService, oidc *OIDC) *Authenticator {
	return &Authenticator{tokens: tokens, oidc: oidc}
}

// Authenticate resolves a bearer token alone, as upstream.AuthService: an
// API token, or an identity token with an account claim (one without
// needs an account: AuthenticateIn).
func (a *Authenticator) Authenticate(ctx context.Context, token string) (upstream.Caller, error) {
	return a.AuthenticateIn(ctx, upstream.Credential{Token: token})
}

// AuthenticateIn resolves a bearer token in the credential's account, as
// upstream.CredentialAuth: an API token, refused (CodeForbidden) when its
// account is another; an identity token in its account claim's account
// (which must agree), else in the credential's.
func (a *Authenticator) AuthenticateIn(ctx context.Context, cred upstream.Credential) (upstream.Caller, error) {
	var c upstream.Caller
	var err error
	if a.oidc != nil && looksLikeJWT(cred.Token) {
		c, err = a.oidc.Authenticate(ctx, cred.Token, cred.Account)
	} else {
		c, err = a.tokens.Authenticate(ctx, cred.Token)
	}
	if err != nil {
		return upstream.Caller{}, err
	}
	return c, inAccount(c, cred.Account)
}

// inAccount refuses a caller of another account than acct ("" names
// none).
func inAccount(c upstream.Caller, acct string) error {
	if acct != "" && acct != c.AccountID {
		return upstream.Errorf(upstream.CodeForbidden, "the %s header does not name the account of the token", AccountHeader)
	}
	return nil
}

// AuthenticateMany authenticates tokens at once, as
// upstream.AuthService: the API tokens among them in one call of the
// token service (its batch form), each identity token by its own
// verification (a signature check, no store read). The result is in the
// order of tokens.
func (a *Authenticator) AuthenticateMany(ctx context.Context, tokens []string) ([]upstream.Authentication, error) {
	creds := make([]upstream.Credential, len(tokens))
	for i, tok := range tokens {
		creds[i].Token = tok
	}
	return a.AuthenticateManyIn(ctx, creds)
}

// AuthenticateManyIn is AuthenticateIn for a batch, as
// upstream.CredentialAuth: the API tokens among creds in one call of the
// token service (its batch form), each identity token by its own
// verification (a signature check and a read of its user). The result is
// in the order of creds.
func (a *Authenticator) AuthenticateManyIn(ctx context.Context, creds []upstream.Credential) ([]upstream.Authentication, error) {
	out := make([]upstream.Authentication, len(creds))
	var api []string
	var at []int // positions in out of the API tokens in api
	for i, cr := range creds {
		if a.oidc != nil && looksLikeJWT(cr.Token) {
			c, err := a.oidc.Authenticate(ctx, cr.Token, cr.Account)
			if err == nil {
				err = inAccount(c, cr.Account)
			}
			out[i] = upstream.Authentication{Caller: c, Err: err}
			continue
		}
		api = append(api, cr.Token)
		at = append(at, i)
	}
	if len(api) == 0 {
		return out, nil
	}
	res, err := a.tokens.AuthenticateMany(ctx, api)
	if err != nil {
		return nil, err
	}
	if len(res) != len(api) {
		return nil, fmt.Errorf("authn: the token service answered %d outcomes for %d tokens", len(res), len(api))
	}
	for j, i := range at {
		out[i] = res[j]
		if out[i].Err == nil {
			if err := inAccount(out[i].Caller, creds[i].Account); err != nil {
				out[i] = upstream.Authentication{Err: err}
			}
		}
	}
	return out, nil
}

// Request authenticates the request r: its bearer token, and the account
// header, which when sent must name the caller's account (for an identity
// token without an account claim, it chooses the account).
func (a *Authenticator) Request(r *http.Request) (upstream.Caller, error) {
	token, ok := BearerToken(r.Header.Get("Authorization"))
	if !ok {
		return upstream.Caller{}, errMissing
	}
	return a.AuthenticateIn(r.Context(), upstream.Credential{Token: token, Account: Account(r)})
}

// errMissing refuses a request without a bearer token.
var errMissing = upstream.Errorf(upstream.CodeUnauthenticated, "missing or malformed Authorization header; send \"Authorization: Bearer <token>\"")

// Refuse renders a refusal of the middleware: err is an *upstream.Error,
// or an internal error (the store failed) that the renderer masks.
type Refuse func(w http.ResponseWriter, r *http.Request, err error)

// Middleware returns the authentication middleware: each request is
// authenticated (Request) and served by next with its caller and a fresh
// request memo (upstream.WithMemo) in its context, and the caller on its
// access line; a refused one goes to refuse, with the WWW-Authenticate
// header of RFC 6750 when it is unauthenticated.
func (a *Authenticator) Middleware(refuse Refuse) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := a.Request(r)
			if err != nil {
				if upstream.ErrorCode(err) == upstream.CodeUnauthenticated {
					challenge := `Bearer realm="okrgate"`
					if err != errMissing {
						challenge += `, error="invalid_token"`
					}
					w.Header().Set("WWW-Authenticate", challenge)
				}
				refuse(w, r, err)
				return
			}
			ctx := r.Context()
			observe.FromContext(ctx).SetCaller(c.AccountID, c.UserID)
			next.ServeHTTP(w, r.WithContext(upstream.WithMemo(upstream.NewContext(ctx, c))))
		})
	}
}

// looksLikeJWT reports whether token has the shape of a compact JWS (three
// dot-separated parts); okrgate's API tokens never do.
func looksLikeJWT(token string) bool {
	return strings.Count(token, ".") == 2
}
