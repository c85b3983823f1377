package client

import (
	"context"
	"crypto/sha256"
	"net/http"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/okrgate/okrgate/upstream"
)

// authCache remembers successful authentications per token for a short,
// bounded time, so that a burst of requests with one token costs one
// upstream call. Keys are SHA-256 hashes: the cache holds no secret.
// Failures are not cached: a token just minted works at once.
type authCache struct {
	lru *expirable.LRU[[sha256.Size]byte, upstream.Caller]
}

func newAuthCache(ttl time.Duration, size int) *authCache {
	if ttl < 0 {
		return &authCache{}
	}
	return &authCache{lru: expirable.NewLRU[[sha256.Size]byte, upstream.Caller](size, nil, ttl)}
}

func (a *authCache) get(token string) (upstream.Caller, bool) {
	if a.lru == nil {
		return upstream.Caller{}, false
	}
	return a.lru.Get(sha256.Sum256([]byte(token)))
}

func (a *authCache) add(token string, c upstream.Caller) {
	if a.lru != nil {
		a.lru.Add(sha256.Sum256([]byte(token)), c)
	}
}

// Authenticate resolves a bearer token with the upstream's
// GET /api/v2/users/me, or from the cache. The caller carries the token,
// which every later call forwards.
func (c *Client) Authenticate(ctx context.Context, token string) (upstream.Caller, error) {
	if token == "" {
		return upstream.Caller{}, upstream.Errorf(upstream.CodeUnauthenticated, "missing token")
	}
	if caller, ok := c.auth.get(token); ok {
		return caller, nil
	}
	var caller upstream.Caller
	var err error
	if c.opts.Capabilities.Whoami {
		var me upstream.Whoami
		_, err = c.do(ctx, call{method: http.MethodGet, route: "/api/v2/users/me", path: "/api/v2/users/me", token: token}, &me)
		caller = me.Caller(token)
	} else {
		caller, err = c.authenticateFallback(ctx, token)
	}
	if err != nil {
		return upstream.Caller{}, err
	}
	c.auth.add(token, caller)
	return caller, nil
}
