package live

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

// DefaultMaxConnLifetime is how long a websocket may stay open: then the
// server closes it with CloseLifetime and the client reconnects (and
// authenticates again). docs/graphql-live.md ("Subscriptions") says why.
const DefaultMaxConnLifetime = time.Hour

// Close codes of a websocket the server ends.
const (
	// CloseForbidden ends a connection whose token no longer authenticates
	// (revoked, expired, user deactivated, account suspended).
	CloseForbidden = 4403
	// CloseLifetime ends a connection that reached its maximum lifetime:
	// RFC 6455's 1001 Going Away, which graphql-ws clients retry.
	CloseLifetime = 1001
	// CloseLifetimeReason is the reason sent with CloseLifetime.
	CloseLifetimeReason = "connection lifetime reached: reconnect"
)

// wsRights is what a websocket's operations are authorized by: its bearer
// token in the account fixed when it opened, checked again before every
// operation and every Reauth while the connection is idle, and the end of
// its lifetime.
type wsRights struct {
	cred upstream.Credential
	// kill closes the connection with a code and reason.
	kill func(code int, reason string)
	// end is when the connection's lifetime ends (zero: never).
	end time.Time

	mu    sync.Mutex
	timer *time.Timer
	// checked is when the token last authenticated (an operation's check
	// counts): the idle check skips a connection checked within reauth.
	checked time.Time
}

// lifetimeEnd returns when a connection opened at now must close: the
// lifetime less up to a tenth of it at random, so connections opened
// together (after a restart) do not all reconnect at the same moment.
func lifetimeEnd(now time.Time, lifetime time.Duration) time.Time {
	if lifetime <= 0 {
		return time.Time{}
	}
	return now.Add(lifetime - time.Duration(rand.Int64N(int64(lifetime/10)+1)))
}

// watch re-authenticates the connection's token every reauth while ctx
// lasts, and closes the connection at the end of its lifetime, so an idle
// connection that pings does not outlive its rights. One timer per
// connection, no goroutine while it waits.
func (r *wsRights) watch(ctx context.Context, auth upstream.CredentialAuth, reauth time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checked = time.Now() // connection_init authenticated it
	// next is the wait until the next check is due (reauth after the last
	// one) or the lifetime ends; r.mu is held.
	next := func() time.Duration {
		d := reauth - time.Since(r.checked)
		if !r.end.IsZero() {
			d = min(d, time.Until(r.end))
		}
		return max(d, 0)
	}
	fire := func() {
		if ctx.Err() != nil {
			return
		}
		if !r.end.IsZero() && !time.Now().Before(r.end) {
			r.kill(CloseLifetime, CloseLifetimeReason)
			return
		}
		r.mu.Lock()
		due := time.Since(r.checked) >= reauth
		r.mu.Unlock()
		if due {
			if _, err := r.authorize(ctx, auth); err != nil {
				if refused(err) {
					return // authorize closed the connection
				}
				if ctx.Err() != nil {
					return
				}
				// The store is failing: check again after reauth.
				r.mu.Lock()
				r.checked = time.Now()
				r.mu.Unlock()
			}
		}
		r.mu.Lock()
		r.timer.Reset(next())
		r.mu.Unlock()
	}
	r.timer = time.AfterFunc(next(), fire)
	context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.timer.Stop()
		r.mu.Unlock()
	})
}

// authorize authenticates the connection's token as it is now, in the
// connection's account. A token that no longer authenticates there
// (revoked, expired, user deactivated, account suspended, another
// account) closes the connection with CloseForbidden; the error
// then carries the GraphQL code to answer. Other failures (the store or
// the upstream unavailable) leave the connection open.
func (r *wsRights) authorize(ctx context.Context, auth upstream.CredentialAuth) (upstream.Caller, error) {
	c, err := auth.AuthenticateIn(ctx, r.cred)
	if err == nil {
		r.mu.Lock()
		r.checked = time.Now()
		r.mu.Unlock()
		return c, nil
	}
	if refused(err) {
		r.kill(CloseForbidden, "the token no longer authenticates: "+upstream.ErrorMessage(err))
	}
	return upstream.Caller{}, err
}

// markChecked records that the token authenticated now, checked by the
// fan-out with its subscription's batch: the idle check is then not due
// for another reauth, so a connection with subscriptions costs no check
// of its own while its fan-out checks it.
func (r *wsRights) markChecked() {
	r.mu.Lock()
	r.checked = time.Now()
	r.mu.Unlock()
}

// refused reports whether err is a token's refusal — revoked, expired,
// unknown, its user deactivated (CodeUnauthenticated), its account
// suspended (CodePaymentRequired), of another account than the
// connection's or without the scopes to read (CodeForbidden), naming no
// account (CodeAccountHeader) — rather than a failure to check it.
func refused(err error) bool {
	switch upstream.ErrorCode(err) {
	case upstream.CodeUnauthenticated, upstream.CodePaymentRequired, upstream.CodeForbidden, upstream.CodeAccountHeader:
		return true
	}
	return false
}
