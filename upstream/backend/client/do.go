package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/okrgate/okrgate/upstream"
)

// maxResponseBytes bounds the body of one upstream answer.
const maxResponseBytes = 256 << 20

// call is one upstream operation: a route of the REST API with its path
// filled in, query parameters and body.
type call struct {
	method string
	route  string // the route pattern, the metrics label ("/api/v1/goals/{id}")
	path   string // the route with its parameters filled in (escaped)
	// id is the last parameter of a single resource's route (its id).
	id string
	// header holds further request headers (conditional.go).
	header http.Header
	query  url.Values
	body   any // encoded as JSON when not nil
	// raw is a body sent as it is, with the media type rawType (an
	// upload), instead of body.
	raw     []byte
	rawType string
	// anonymous calls send no credentials (a picture's URL needs none).
	anonymous bool
	// token overrides the caller's token (Authenticate).
	token string
	// notModified is true for operations whose 304 is an answer (the goal
	// already carries the tag); elsewhere 304 is upstream.CodeNotModified.
	notModified bool
}

// answer is what an upstream call answered with a 2xx or 304 status.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// url returns the request URL of k.
func (c *Client) url(k call) string {
	u := c.base + k.path
	if len(k.query) > 0 {
		u += "?" + k.query.Encode()
	}
	return u
}

// do runs k for the caller of ctx and decodes a 2xx answer into out (when
// not nil). Problem answers become *upstream.Error with their code.
func (c *Client) do(ctx context.Context, k call, out any) (answer, error) {
	p := c.forward(&k)
	a, err := c.send(ctx, k)
	if err != nil {
		return a, err
	}
	c.forwarded(k, p, a)
	recordVersion(ctx, k, a)
	if a.status == http.StatusNotModified && !k.notModified {
		return a, problemError(a.status, a.header, nil)
	}
	if out != nil && a.status != http.StatusNoContent && a.status != http.StatusNotModified && len(bytes.TrimSpace(a.body)) > 0 {
		if err := json.Unmarshal(a.body, out); err != nil {
			return a, upstream.Errorf(upstream.CodeUnavailable, "%s %s: the upstream answered an unreadable body: %v", k.method, k.route, err)
		}
	}
	return a, nil
}

// send runs k: the concurrency bound, the circuit breaker, and for an
// idempotent read, retries on connection errors and 503.
func (c *Client) send(ctx context.Context, k call) (answer, error) {
	token := k.token
	acct := ""
	if token == "" && !k.anonymous {
		caller, err := upstream.MustCaller(ctx)
		if err != nil {
			return answer{}, err
		}
		if caller.Token == "" {
			return answer{}, upstream.Errorf(upstream.CodeUnauthenticated, "the caller carries no token to forward")
		}
		token, acct = caller.Token, caller.AccountID
	}
	body := k.raw
	if k.body != nil {
		var err error
		if body, err = json.Marshal(k.body); err != nil {
			return answer{}, fmt.Errorf("client: encode %s %s: %w", k.method, k.route, err)
		}
	}
	target := c.url(k)
	if len(target)-len(c.base) > c.opts.MaxURLBytes {
		return answer{}, upstream.Errorf(upstream.CodeLimitExceeded, "%s %s: the request URL would be %d bytes (at most %d)", k.method, k.route, len(target)-len(c.base), c.opts.MaxURLBytes)
	}
	retries := 0
	if k.method == http.MethodGet {
		retries = c.opts.Retries
	}
	for attempt := 0; ; attempt++ {
		a, err := c.attempt(ctx, k, target, token, acct, body)
		honour := c.opts.MaxRetryAfter > 0
		if err == nil || attempt >= retries || !retryable(err, honour) || ctx.Err() != nil {
			return a, err
		}
		c.m.retries.WithLabelValues(k.route).Inc()
		// Full jitter: a random wait up to base·2^attempt; at least what
		// the upstream's Retry-After asked for, when honoured.
		wait := time.Duration(rand.Int64N(int64(c.opts.RetryBackoff) << attempt))
		if ra, ok := RetryAfter(err); ok && honour {
			if ra > c.opts.MaxRetryAfter {
				return a, err // longer than the caller will wait
			}
			wait = max(wait, ra)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return a, unavailable(k.route, ctx.Err())
		case <-t.C:
		}
	}
}

// attempt makes one request, under the concurrency bound and the breaker.
func (c *Client) attempt(ctx context.Context, k call, target, token, acct string, body []byte) (answer, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return answer{}, unavailable(k.route, ctx.Err())
	}
	defer func() { <-c.sem }()
	var a answer
	_, err := c.breaker.Execute(func() (struct{}, error) {
		var err error
		a, err = c.roundTrip(ctx, k, target, token, acct, body)
		return struct{}{}, err
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		c.m.calls.WithLabelValues(k.method, k.route, "breaker_open").Inc()
		return a, upstream.Errorf(upstream.CodeUnavailable, "the upstream is unavailable (circuit open after repeated failures)")
	}
	return a, err
}

// roundTrip sends one HTTP request with the per-attempt timeout and reads
// the answer.
func (c *Client) roundTrip(ctx context.Context, k call, target, token, acct string, body []byte) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, target, rd)
	if err != nil {
		return answer{}, fmt.Errorf("client: %s %s: %w", k.method, k.route, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if acct != "" {
		req.Header.Set("service-accountId", acct)
	}
	req.Header.Set("Accept", "application/json")
	for name, vs := range k.header {
		req.Header[name] = vs
	}
	switch {
	case k.rawType != "":
		req.Header.Set("Content-Type", k.rawType)
	case body != nil:
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.m.observe(k.method, k.route, "error", time.Since(start))
		return answer{}, unavailable(k.method+" "+k.route, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	c.m.observe(k.method, k.route, strconv.Itoa(resp.StatusCode), time.Since(start))
	if err != nil {
		return answer{}, unavailable(k.method+" "+k.route, err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: raw}
	if resp.StatusCode < 300 || resp.StatusCode == http.StatusNotModified {
		return a, nil
	}
	return a, problemError(resp.StatusCode, resp.Header, raw)
}
