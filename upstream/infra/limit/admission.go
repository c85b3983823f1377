package limit

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/authn"
)

// Defaults of Config: times, not counts, so that they need no tuning from 2
// to 64 cores; the concurrency limit finds its own level (gradient).
const (
	// DefaultTarget is how long a request may wait in a standing queue:
	// under sustained overload answers stay fast and the excess is refused
	// early, with a Retry-After that spreads the retries.
	DefaultTarget = 250 * time.Millisecond
	// DefaultBurst is how long a request may wait in a queue that drains:
	// a burst of many slow requests on an otherwise idle server (a
	// dashboard's widgets, a team opening the same link) is served, not
	// refused. It also bounds the wait of a herd arriving at once before
	// the queue is known to stand (the first interval of an overload), so
	// it stays within what an interactive client waits for an answer.
	DefaultBurst = 2 * time.Second
	// DefaultInterval is how long every request must have waited over the
	// target before a queue counts as standing.
	DefaultInterval = time.Second
)

// Auto is the Config.MaxReads and MaxWrites value of an adaptive limit.
const Auto = -1

// Config configures an Admission. Zero times mean the defaults.
type Config struct {
	// MaxReads and MaxWrites fix the requests executing at once per lane:
	// Auto (the default) for an adaptive limit, 0 for no limit (and no
	// queue), N > 0 for exactly N.
	MaxReads, MaxWrites int
	Target              time.Duration // DefaultTarget
	Burst               time.Duration // DefaultBurst
	Interval            time.Duration // DefaultInterval
	// Procs is how many requests the processors execute in parallel:
	// runtime.GOMAXPROCS when 0. It sets where the adaptive limits start
	// and their range.
	Procs int
	// MinWrites is the fewest writes the adaptive write limit lets
	// execute at once (at least one). A server whose writes wait on a
	// remote database sets it to the connections it has to that database:
	// below it, connections idle while writes queue; one on SQLite, to the
	// writes its group commit takes at once. The gradient reads
	// execution times that grow as competition, and a database that slows
	// down (a write taking 100 round trips' worth of time more) would
	// otherwise take the limit to one write at a time, refusing the
	// others, when the writes of an account waiting together cost the
	// database one transaction (docs/failures.md, "Failures").
	MinWrites int
}

func (c *Config) defaults() {
	if c.Target <= 0 {
		c.Target = DefaultTarget
	}
	if c.Burst <= 0 {
		c.Burst = DefaultBurst
	}
	c.Burst = max(c.Burst, c.Target)
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Procs <= 0 {
		c.Procs = runtime.GOMAXPROCS(0)
	}
}

// Admission decides which requests execute now, which wait and which are
// refused with 503 and Retry-After. Reads and writes each have a lane of
// their own (a burst of writes cannot starve reads nor the other way
// round), with an adaptive concurrency limit (gradient), a queue fair
// between accounts or tokens (fairQueue), and waiting times managed like
// CoDel's (lane). REST requests are admitted by Handler; GraphQL operations
// by Admit, called once the operation is parsed and validated, so that a
// mutation takes the write lane, a subscription none, and the estimated
// cost of the document chooses its class whatever the transport (POST, GET,
// websocket or server-sent events).
type Admission struct {
	reads, writes *lane
}

// NewAdmission returns an Admission of cfg on clock (nil: the system's),
// recording into m (nil: nowhere).
func NewAdmission(cfg Config, clock Clock, m *Metrics) *Admission {
	cfg.defaults()
	if clock == nil {
		clock = systemClock{}
	}
	procs := cfg.Procs
	// Adaptive limits start where a CPU-bound server is busy without
	// queueing in the scheduler, and may range from one request per core
	// (the machine is busy with something else) to far more (requests
	// wait on a remote database or upstream).
	reads := limitOf(cfg.MaxReads, 2*procs, procs, 256*procs)
	floor := max(1, cfg.MinWrites)
	writes := limitOf(cfg.MaxWrites, max(2, procs, floor), floor, max(64*procs, floor))
	return &Admission{
		reads:  newLane("read", &cfg, clock, m, reads),
		writes: newLane("write", &cfg, clock, m, writes),
	}
}

func limitOf(n, initial, lo, hi int) *gradient {
	switch {
	case n == 0:
		return nil
	case n > 0:
		return newGradient(n, n, n)
	}
	return newGradient(initial, lo, hi)
}

// Admit admits a GraphQL operation (a write for a mutation) of the fairness
// key (the caller's account) and class (its cost bucket), waiting if need
// be. It returns the function to call when the operation is done, or a
// *Refusal, or ctx's error.
func (a *Admission) Admit(ctx context.Context, write bool, key, class string) (func(), error) {
	l := a.reads
	if write {
		l = a.writes
	}
	t, err := l.acquire(ctx, key, class)
	if err != nil {
		return nil, err
	}
	return t.release, nil
}

// Handler admits the requests to next, except those to /graphql: their
// operations are admitted by the GraphQL server, which alone knows whether
// a request holds a query, a mutation or a subscription, and what it
// costs. GET, HEAD and OPTIONS are reads; other methods are writes. Headers
// such as Upgrade or Accept play no part: a REST route is admitted the same
// with or without them. A refused request is answered 503 with Retry-After.
func (a *Admission) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == graphqlPath {
			next.ServeHTTP(w, r)
			return
		}
		write := true
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			write = false
		}
		release, err := a.Admit(r.Context(), write, restKey(r), restClass(r))
		if err != nil {
			if ref, ok := err.(*Refusal); ok {
				w.Header().Set("Retry-After", strconv.Itoa(int(ref.RetryAfter().Seconds())))
				refuse(w, r, upstream.CodeOverloaded, ref.Error())
			}
			return // the client is gone
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}

// restKey is the fairness key of a REST request, known before the facade
// authenticates it: the account its account header names, else
// its bearer token, else its address. A header naming an account other than
// the token's is refused by the facade right after admission (403), so a
// client can put into another account's share only requests that cost
// nothing but their refusal, and no more than its token's rate limit.
func restKey(r *http.Request) string {
	if acct := authn.Account(r); acct != "" {
		return "account " + acct
	}
	if token, ok := authn.BearerToken(r.Header.Get("Authorization")); ok {
		return "token " + token
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "address " + host
}

// restClass is the class of a REST request for the execution-time
// estimates: its method and path with identifiers replaced, and the order
// of magnitude of its page size.
func restClass(r *http.Request) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte(' ')
	for i, seg := range strings.Split(strings.Trim(r.URL.Path, "/"), "/") {
		if i >= 6 {
			break
		}
		if isID(seg) {
			seg = "{id}"
		}
		b.WriteByte('/')
		b.WriteString(seg)
	}
	if n, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && n > 0 {
		b.WriteString(" limit~")
		b.WriteString(strconv.Itoa(1 << bitLen(n)))
	}
	return b.String()
}

// isID reports whether a path segment looks like an identifier: long, or
// holding a digit (but not a version such as v2).
func isID(seg string) bool {
	if v, ok := strings.CutPrefix(seg, "v"); ok && v != "" && strings.Trim(v, "0123456789") == "" {
		return false
	}
	return len(seg) > 20 || strings.ContainsAny(seg, "0123456789")
}

func bitLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// CostClass is the class of a GraphQL operation of the estimated cost: its
// order of magnitude (a power of two), so that one 10,000-node tree and
// one single-goal read are estimated and compared each with its kind.
func CostClass(cost int) string {
	return "graphql cost~" + strconv.Itoa(1<<bitLen(max(cost, 0)))
}

// Limits reports the current concurrency limits (0: unbounded), for the
// metrics and tests.
func (a *Admission) Limits() (reads, writes int) {
	r, _, _ := a.reads.state()
	w, _, _ := a.writes.state()
	return r, w
}
