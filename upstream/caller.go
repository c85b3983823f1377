package upstream

import "context"

// Caller is the authenticated principal of a request: a user of one account.
type Caller struct {
	AccountID string
	UserID    string
	// Roles are the names of the caller's roles ("admin", "member", "viewer", or account roles).
	Roles []string
	// Token is the bearer token the caller presented; gateway mode forwards it.
	Token string
	// TokenID identifies the presented token (its listing id); Scopes are
	// its scopes. Nil Scopes (a caller built in-process) is unrestricted.
	TokenID string
	Scopes  []Scope
}

type callerKey struct{}

// NewContext returns a copy of ctx carrying c.
func NewContext(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller carried by ctx.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// MustCaller returns the caller carried by ctx, or an unauthenticated error:
// every operation of the API acts for a caller.
func MustCaller(ctx context.Context) (Caller, error) {
	c, ok := CallerFrom(ctx)
	if !ok || c.AccountID == "" {
		return Caller{}, Errorf(CodeUnauthenticated, "no authenticated caller")
	}
	return c, nil
}
