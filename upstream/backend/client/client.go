// Package client implements upstream.API over HTTP, against a server of the
// REST API (okrgate's own facade, upstream/transport/rest, or a compatible service):
// gateway mode (docs/gateway.md).
//
// Every call acts for the upstream.Caller in its context: the caller's
// bearer token (Caller.Token, set by Authenticate) and account travel in the
// Authorization and service-accountId headers, so the upstream decides what
// the caller may see and do. Problem bodies map back to the upstream error
// codes they carry; upstream 5xx answers, network failures, timeouts and an
// open circuit breaker are upstream.CodeUnavailable.
//
// The transport behaves on a real network: pooled keep-alive connections, a
// timeout per attempt under the caller's deadline, retries with backoff and
// jitter for idempotent reads on connection errors and 503, a bound on
// concurrent upstream requests, a circuit breaker, $in batches split so that
// no URL exceeds Options.MaxURLBytes, and Prometheus metrics per route and
// status.
//
// Each method does what upstream.API documents, through the REST operation
// named in its body (docs/gateway.md); a method has its own doc comment
// where the REST answer needs more than one call or carries less than the
// method returns.
package client

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sony/gobreaker/v2"

	"github.com/okrgate/okrgate/upstream"
)

// Defaults of Options.
const (
	DefaultTimeout         = 10 * time.Second
	DefaultMaxConcurrent   = 64
	DefaultRetries         = 2
	DefaultRetryBackoff    = 25 * time.Millisecond
	DefaultMaxURLBytes     = 8 << 10
	DefaultBreakerFailures = 5
	DefaultBreakerOpen     = 5 * time.Second
	DefaultAuthCacheTTL    = 30 * time.Second
	DefaultAuthCacheSize   = 10_000
	// MaxFallbackCalls bounds the per-parent calls one fallback listing may
	// make (Options.Fallback, fallback.go).
	MaxFallbackCalls = 1000
)

// Options configures a Client. Zero values mean the defaults.
type Options struct {
	// Transport sends the requests; nil is a pooled keep-alive transport
	// (NewTransport). Wrap it to trace or record upstream calls.
	Transport http.RoundTripper
	// Timeout bounds one attempt of one call; the caller's context deadline
	// bounds the whole call, retries included.
	Timeout time.Duration
	// MaxConcurrent bounds the requests in flight to the upstream at once;
	// callers beyond it wait (under their deadline).
	MaxConcurrent int
	// Retries is how many times an idempotent read is retried after a
	// connection error or a 503; negative means none.
	Retries      int
	RetryBackoff time.Duration
	// MaxRetryAfter, when positive, makes retried reads honour the
	// upstream's rate limits: a 429 is retried too, and a retry waits at
	// least the Retry-After of the answer; an answer asking for longer
	// than MaxRetryAfter is not retried. Zero retries 503 after the
	// backoff alone and passes 429 on (a gateway sheds load, it does not
	// queue it).
	MaxRetryAfter time.Duration
	// MaxURLBytes bounds the length of a request URL: a listing whose $in
	// filter would exceed it is split into several calls.
	MaxURLBytes int
	// BreakerFailures consecutive failures (network errors, 5xx) open the
	// circuit breaker for BreakerOpen: calls then fail at once with
	// upstream.CodeUnavailable, until one trial call succeeds.
	BreakerFailures uint32
	BreakerOpen     time.Duration
	// AuthCacheTTL is how long a successful authentication is reused per
	// token; negative disables the cache. AuthCacheSize bounds its entries.
	AuthCacheTTL  time.Duration
	AuthCacheSize int
	// Registerer receives the client's metrics (metrics.go); nil registers
	// nothing.
	Registerer prometheus.Registerer
	// Capabilities says which designed operations the upstream serves; nil
	// assumes all of them. Discover reads them from the upstream's OpenAPI
	// document.
	Capabilities *Capabilities
	// EventPoll is how often the head of a followed account's event log
	// is polled (events.go); DefaultEventPoll.
	EventPoll time.Duration
}

func (o *Options) defaults() {
	if o.Transport == nil {
		o.Transport = NewTransport()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.Retries == 0 {
		o.Retries = DefaultRetries
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = DefaultRetryBackoff
	}
	if o.MaxURLBytes <= 0 {
		o.MaxURLBytes = DefaultMaxURLBytes
	}
	if o.BreakerFailures == 0 {
		o.BreakerFailures = DefaultBreakerFailures
	}
	if o.BreakerOpen <= 0 {
		o.BreakerOpen = DefaultBreakerOpen
	}
	if o.AuthCacheTTL == 0 {
		o.AuthCacheTTL = DefaultAuthCacheTTL
	}
	if o.AuthCacheSize <= 0 {
		o.AuthCacheSize = DefaultAuthCacheSize
	}
	if o.Capabilities == nil {
		o.Capabilities = AllCapabilities()
	}
	if o.EventPoll <= 0 {
		o.EventPoll = DefaultEventPoll
	}
}

// NewTransport returns the default transport: keep-alive connections pooled
// per host (enough idle ones for the concurrency bound), HTTP/2 when the
// upstream offers it over TLS.
func NewTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   DefaultMaxConcurrent,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Client is upstream.API over HTTP. It is safe for concurrent use.
type Client struct {
	base    string // scheme://host[/prefix], no trailing slash
	hc      *http.Client
	opts    Options
	sem     chan struct{}
	breaker *gobreaker.CircuitBreaker[struct{}]
	m       *metrics
	auth    *authCache
	follow  *follower // events.go
	// write are the options this view's writes forward (Writing,
	// conditional.go); every view of one client shares the rest.
	write upstream.WriteOptions
}

var _ upstream.API = (*Client)(nil)

// New returns a client of the REST API served at baseURL (for example
// "http://okr.internal:8080").
func New(baseURL string, opts Options) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: upstream URL %q: want http(s)://host[:port]", baseURL)
	}
	opts.defaults()
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	c := &Client{
		base:   strings.TrimSuffix(u.String(), "/"),
		hc:     &http.Client{Transport: opts.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		opts:   opts,
		sem:    make(chan struct{}, opts.MaxConcurrent),
		m:      m,
		auth:   newAuthCache(opts.AuthCacheTTL, opts.AuthCacheSize),
		follow: newFollower(opts.EventPoll),
	}
	c.breaker = gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        "upstream",
		MaxRequests: 1,
		Timeout:     opts.BreakerOpen,
		ReadyToTrip: func(n gobreaker.Counts) bool { return n.ConsecutiveFailures >= opts.BreakerFailures },
		IsExcluded:  func(err error) bool { return err != nil && !isUpstreamFailure(err) },
		OnStateChange: func(_ string, _, to gobreaker.State) {
			c.m.breakerState.Set(float64(to))
		},
	})
	return c, nil
}

// Ready reports whether the upstream answers: its OpenAPI document (served
// without credentials) within ctx's deadline. While the circuit breaker is
// open it fails at once.
func (c *Client) Ready(ctx context.Context) error {
	if c.breaker.State() == gobreaker.StateOpen {
		return upstream.Errorf(upstream.CodeUnavailable, "the upstream is unavailable (circuit open)")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+openAPIPath, nil)
	if err != nil {
		return fmt.Errorf("client: ready: %w", err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return unavailable("ready", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 {
		return upstream.Errorf(upstream.CodeUnavailable, "the upstream answered %d", resp.StatusCode)
	}
	return nil
}

// openAPIPath is where a server of the REST API serves its OpenAPI document.
const openAPIPath = "/api/openapi.json"
