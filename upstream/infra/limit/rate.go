package limit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"

	"github.com/okrgate/okrgate/upstream"
)

// Rate is a budget of requests per window; zero Requests turns it off.
type Rate struct {
	Requests int
	Window   time.Duration
}

func (r Rate) String() string {
	if r.Requests <= 0 {
		return "off"
	}
	return fmt.Sprintf("%d/%s", r.Requests, shortDuration(r.Window))
}

// shortDuration writes whole hours and minutes as 1h and 1m rather than
// time.Duration's 1h0m0s and 1m0s.
func shortDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// RateConfig holds the three budgets.
type RateConfig struct {
	// Token: requests per bearer token (each token has its own budget).
	Token Rate
	// Address: requests per client address, with or without a token.
	Address Rate
	// AuthFailures: 401 answers per client address; past it, every request
	// from the address is 429 until the window slides on.
	AuthFailures Rate
}

// DefaultRateConfig: 600 requests a minute per token, 1200 per address,
// 20 failed authentications a minute per address.
func DefaultRateConfig() RateConfig {
	return RateConfig{
		Token:        Rate{600, time.Minute},
		Address:      Rate{1200, time.Minute},
		AuthFailures: Rate{20, time.Minute},
	}
}

func (c RateConfig) String() string {
	if c == (RateConfig{}) {
		return "off"
	}
	return fmt.Sprintf("token=%s,address=%s,auth-failures=%s", c.Token, c.Address, c.AuthFailures)
}

// ParseRateConfig reads "off" or a comma list of name=N/window overriding
// the defaults, e.g. "token=600/1m,address=1200/1m,auth-failures=20/1m";
// "name=off" turns one budget off.
func ParseRateConfig(s string) (RateConfig, error) {
	s = strings.TrimSpace(s)
	if s == "off" || s == "0" {
		return RateConfig{}, nil
	}
	c := DefaultRateConfig()
	if s == "" {
		return c, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return c, fmt.Errorf("rate limit %q: want name=N/window", part)
		}
		var dst *Rate
		switch name {
		case "token":
			dst = &c.Token
		case "address":
			dst = &c.Address
		case "auth-failures":
			dst = &c.AuthFailures
		default:
			return c, fmt.Errorf("rate limit %q: unknown budget %q (token, address, auth-failures)", part, name)
		}
		if val == "off" {
			*dst = Rate{}
			continue
		}
		n, w, ok := strings.Cut(val, "/")
		req, err := strconv.Atoi(n)
		if !ok || err != nil || req < 0 {
			return c, fmt.Errorf("rate limit %q: want N/window, e.g. 600/1m", part)
		}
		win, err := time.ParseDuration(w)
		if err != nil || win < time.Second {
			return c, fmt.Errorf("rate limit %q: window %q is not a duration of at least 1s", part, w)
		}
		*dst = Rate{req, win}
	}
	return c, nil
}

// RateLimiter applies the budgets of a RateConfig.
type RateLimiter struct {
	token, address, failures *httprate.RateLimiter // nil: off
	authBudget               int
	authWindow               time.Duration
	policy                   string // the RateLimit-Policy header
}

// NewRateLimiter returns the limiter of cfg; a zero cfg limits nothing.
func NewRateLimiter(cfg RateConfig) *RateLimiter {
	l := &RateLimiter{authBudget: cfg.AuthFailures.Requests, authWindow: cfg.AuthFailures.Window}
	var policy []string
	mk := func(name string, r Rate) *httprate.RateLimiter {
		if r.Requests <= 0 {
			return nil
		}
		policy = append(policy, fmt.Sprintf("%q;q=%d;w=%d", name, r.Requests, int(r.Window.Seconds())))
		return httprate.NewRateLimiter(r.Requests, r.Window)
	}
	l.token = mk("token", cfg.Token)
	l.address = mk("address", cfg.Address)
	l.failures = mk("auth-failures", cfg.AuthFailures)
	l.policy = strings.Join(policy, ", ")
	return l
}

// Handler limits next.
func (l *RateLimiter) Handler(next http.Handler) http.Handler {
	if l.token == nil && l.address == nil && l.failures == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("RateLimit-Policy", l.policy)
		addr := clientAddress(r)
		if l.failures != nil && l.authBlocked(addr) {
			w.Header().Set("Retry-After", strconv.Itoa(int(l.authWindow.Seconds())))
			refuse(w, r, upstream.CodeRateLimited,
				"too many failed authentications from your address; retry later")
			return
		}
		if l.address != nil && l.address.OnLimit(w, r, "a:"+addr) {
			refuse(w, r, upstream.CodeRateLimited,
				"too many requests from your address; retry after the time in Retry-After")
			return
		}
		if tok, ok := bearer(r); ok && l.token != nil && l.token.OnLimit(w, r, "t:"+tokenKey(tok)) {
			refuse(w, r, upstream.CodeRateLimited,
				"too many requests with this token; retry after the time in Retry-After")
			return
		}
		if l.failures == nil {
			next.ServeHTTP(w, r)
			return
		}
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		if ww.Status() == http.StatusUnauthorized {
			l.failures.OnLimit(discardHeaders{}, r, "f:"+addr) // counts the failure
		}
	})
}

// authBlocked reports whether addr has used up its budget of failed
// authentications.
func (l *RateLimiter) authBlocked(addr string) bool {
	_, rate, err := l.failures.Status("f:" + addr)
	return err == nil && int(math.Round(rate)) >= l.authBudget
}

// clientAddress is the IP of the client (its /64 for IPv6): the direct peer.
// Behind a reverse proxy every client shares the proxy's address; see
// docs/rest.md, "Rate limits".
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return httprate.CanonicalizeIP(host)
}

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	tok = strings.TrimSpace(tok)
	return tok, ok && strings.EqualFold(scheme, "Bearer") && tok != ""
}

// tokenKey names a token's budget by a hash, so that the limiter's memory
// never holds secrets.
func tokenKey(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:12])
}

// discardHeaders is a ResponseWriter whose headers go nowhere: counting a
// failure after the answer was written must not touch it.
type discardHeaders struct{}

func (discardHeaders) Header() http.Header         { return http.Header{} }
func (discardHeaders) Write(b []byte) (int, error) { return len(b), nil }
func (discardHeaders) WriteHeader(int)             {}
