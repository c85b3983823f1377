// Package respcache shares GraphQL answers between callers who may see the
// same things: identical reads in flight for callers of one visibility
// class are computed once (single-flight), and their answers are kept in a
// cache bounded in bytes, keyed by the account, the visibility class, the
// account's data version and the request (document, operation and
// variables). The data version is the position of the account's event
// log, which every write moves in the write's own transaction, so a read
// that starts after a write was acknowledged looks for another key than
// any answer computed before it. docs/graphql-execution.md ("Shared
// answers") states the rule and why an answer cannot cross classes.
package respcache

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
)

// DefaultMaxBytes bounds the answers a Cache keeps when Config.MaxBytes is
// zero: 64 MiB, room for the trees of a few dozen (class, view) pairs of a
// 10,000-objective account (about 2 MB each).
const DefaultMaxBytes = 64 << 20

// entryOverhead is what an entry costs besides its body and key: the list
// element, the map slot and the entity tag.
const entryOverhead = 200

// Key identifies an answer: the scope it was computed in and a digest of
// the request. Two requests with one Key get the same answer.
type Key struct {
	Scope
	// Request is RequestDigest of the document, operation and variables.
	Request string
}

func (k Key) size() int64 {
	return int64(len(k.Account) + len(k.Class) + len(k.Request))
}

func (k Key) flight() string {
	return k.Account + "\x00" + k.Class + "\x00" + strconv.FormatInt(k.Version, 10) + "\x00" + k.Request
}

// RequestDigest returns the digest of a request: its document, operation
// name and variables, the latter as canonical JSON (keys sorted, as
// encoding/json writes maps).
func RequestDigest(document, operation string, variables []byte) string {
	h := sha256.New()
	for _, p := range []string{document, operation} {
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	h.Write(variables)
	return hex.EncodeToString(h.Sum(nil))
}

// Answer is a cached answer: the response body and its entity tag.
type Answer struct {
	Body []byte
	// ETag is the quoted strong entity tag of Body (ETagOf).
	ETag string
}

// ETagOf returns the entity tag of a response body: a digest of the bytes,
// quoted.
func ETagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// Config configures a Cache.
type Config struct {
	// MaxBytes bounds the bytes of the answers kept (bodies, keys and
	// bookkeeping); the least recently used go first. DefaultMaxBytes when
	// zero.
	MaxBytes int64
	// Registerer, when not nil, receives the cache's metrics (Metrics).
	Registerer prometheus.Registerer
}

// Cache keeps answers by Key, at most MaxBytes of them, and computes each
// missing one once however many ask for it at the same time. It is safe
// for concurrent use.
type Cache struct {
	max     int64
	metrics *metrics
	flights singleflight.Group

	mu    sync.Mutex
	bytes int64
	lru   *list.List // of *entry, most recently used first
	items map[Key]*list.Element
}

type entry struct {
	key    Key
	answer Answer
	size   int64
}

// New returns an empty cache with cfg's bound, its metrics registered on
// cfg.Registerer.
func New(cfg Config) (*Cache, error) {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	c := &Cache{max: cfg.MaxBytes, lru: list.New(), items: map[Key]*list.Element{}}
	m, err := newMetrics(cfg.Registerer, c)
	if err != nil {
		return nil, err
	}
	c.metrics = m
	return c, nil
}

// Get returns the answer kept for k, counting a hit or nothing (a miss is
// counted by Do, which computes it).
func (c *Cache) Get(k Key) (Answer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return Answer{}, false
	}
	c.lru.MoveToFront(el)
	c.metrics.hits.Inc()
	return el.Value.(*entry).answer, true
}

// peek is Get without counting a hit.
func (c *Cache) peek(k Key) (Answer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return Answer{}, false
	}
	return el.Value.(*entry).answer, true
}

// Outcome says how Do answered.
type Outcome int

// Outcomes of Do.
const (
	// Hit: the answer was kept.
	Hit Outcome = iota
	// Computed: this call computed the answer.
	Computed
	// Joined: another call computing the same key gave its answer.
	Joined
	// Unshared: another call computed the key but its answer may not be
	// shared (compute said so); the caller must compute its own.
	Unshared
)

// Sharing says to whom a computed answer may be given.
type Sharing int

// Sharings of a computed answer.
const (
	// Own: the answer is its computer's alone (errors, or a write that
	// may have changed classes moved the version while it was computed);
	// the calls that joined compute their own.
	Own Sharing = iota
	// Share: the answer may be given to the calls that joined — callers
	// of its class who read its version — but not kept: only writes that
	// keep classes (check-ins) moved the version while it was computed,
	// so it shows the data of its version or later, decided as for the
	// class.
	Share
	// Keep: the version did not move while it was computed: the answer is
	// shared and kept for the calls that ask for its key later.
	Keep
)

// Compute computes the answer of a key and says to whom it may be given.
type Compute func() (Answer, Sharing)

// Do returns the answer kept for k or, when there is none, the answer of
// compute, run once for all the calls asking for k at the same time. A
// call that joined another's computation whose answer is its own gets
// Unshared and no answer: it computes its own.
func (c *Cache) Do(k Key, compute Compute) (Answer, Outcome) {
	if a, ok := c.Get(k); ok {
		return a, Hit
	}
	type result struct {
		a       Answer
		sharing Sharing
	}
	leader := false
	v, _, shared := c.flights.Do(k.flight(), func() (any, error) {
		// Kept by a flight that ended after the Get above.
		if a, ok := c.peek(k); ok {
			return result{a, Keep}, nil
		}
		leader = true
		c.metrics.misses.Inc()
		a, sharing := compute()
		if sharing == Keep {
			c.add(k, a)
		}
		return result{a, sharing}, nil
	})
	r := v.(result)
	switch {
	case leader:
		return r.a, Computed
	case r.sharing == Own:
		return Answer{}, Unshared
	}
	if !shared {
		c.metrics.hits.Inc() // a flight of its own found it kept
		return r.a, Hit
	}
	c.metrics.joins.Inc()
	return r.a, Joined
}

// add keeps a under k, evicting the least recently used answers beyond the
// bound. An answer larger than the bound is not kept.
func (c *Cache) add(k Key, a Answer) {
	size := int64(len(a.Body)+len(a.ETag)+entryOverhead) + k.size()
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.remove(el)
	}
	c.items[k] = c.lru.PushFront(&entry{key: k, answer: a, size: size})
	c.bytes += size
	for c.bytes > c.max {
		c.remove(c.lru.Back())
		c.metrics.evictions.Inc()
	}
}

func (c *Cache) remove(el *list.Element) {
	e := el.Value.(*entry)
	c.lru.Remove(el)
	delete(c.items, e.key)
	c.bytes -= e.size
}

// Bytes returns the bytes the kept answers hold.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len returns how many answers are kept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}
