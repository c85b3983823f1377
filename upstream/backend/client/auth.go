package client

import (
	"context"
	"crypto/sha256"
	"net/http"
	"sync"
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

// authenticateManyAtOnce bounds how many of AuthenticateMany's tokens are
// resolved with the upstream at the same time.
const authenticateManyAtOnce = 4

// AuthenticateMany authenticates each distinct token as Authenticate does
// (from the cache, else with the upstream): the REST API has no call for
// many tokens, so a batch costs one upstream call per distinct token not
// cached, a few at a time. A token that fails carries its error; the
// batch fails as a whole only when ctx ends.
func (c *Client) AuthenticateMany(ctx context.Context, tokens []string) ([]upstream.Authentication, error) {
	out := make([]upstream.Authentication, len(tokens))
	first := map[string]int{} // a token: its first position
	var distinct []int
	for i, t := range tokens {
		if _, ok := first[t]; !ok {
			first[t] = i
			distinct = append(distinct, i)
		}
	}
	sem := make(chan struct{}, authenticateManyAtOnce)
	var wg sync.WaitGroup
	for _, i := range distinct {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			caller, err := c.Authenticate(ctx, tokens[i])
			out[i] = upstream.Authentication{Caller: caller, Err: err}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, t := range tokens {
		out[i] = out[first[t]]
	}
	return out, nil
}
