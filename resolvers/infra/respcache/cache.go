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
	"io"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
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

// lane names the keys that differ only by their version: one request of
// one class, whatever the data version.
func (k Key) lane() string {
	return k.Account + "\x00" + k.Class + "\x00" + k.Request
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
	// Parts are the body's bytes in order, as the encoder wrote them:
	// written one after the other (WriteTo), never joined, since a joined
	// copy would cost the answer's size again at a burst's peak. Nobody
	// modifies them: every caller given the answer shares them.
	Parts [][]byte
	// ETag is the quoted strong entity tag of the body (ETagOf).
	ETag string
}

// Len returns the length of the body.
func (a Answer) Len() int {
	n := 0
	for _, p := range a.Parts {
		n += len(p)
	}
	return n
}

// WriteTo writes the body to w, part by part. Unlike net.Buffers.WriteTo
// it leaves the parts as they are, for the other callers sharing them.
func (a Answer) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, p := range a.Parts {
		m, err := w.Write(p)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// ETagOf returns the entity tag of a response body given in parts: a
// digest of their bytes in order, quoted.
func ETagOf(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
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

	lanesMu sync.Mutex
	lanes   map[string]*lane // lanes with an execution running

	mu    sync.Mutex
	bytes int64
	lru   *list.List // of *entry, most recently used first
	items map[Key]*list.Element
	// accounts holds, per account, the version of its answers kept and
	// their entries: a request or an answer of a later version supersedes
	// them (supersede).
	accounts map[string]*kept

	// bases are the lanes' bases (bases.go), by lane, most recently put
	// first in baseLRU.
	bases     map[string]*list.Element
	baseLRU   *list.List
	baseBytes int64
}

// kept is the answers an account has in the cache, all of one version.
type kept struct {
	version int64
	items   map[Key]*list.Element
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
	c := &Cache{max: cfg.MaxBytes, lru: list.New(), items: map[Key]*list.Element{}, lanes: map[string]*lane{},
		accounts: map[string]*kept{}, bases: map[string]*list.Element{}, baseLRU: list.New()}
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

// Compute computes the answer of a key and says to whom it may be given:
// since is the lowest data version among the requests that will be given
// a shared answer (the key's own version or lower), so Share means that
// only writes that keep classes came after since.
type Compute func(since int64) (Answer, Sharing)

// lane is the executions of one request of one class (a Key but its
// version): at most one runs at a time. The requests that arrive while one
// runs wait for the next, which starts when it ends and serves them all,
// whatever their versions: under a write a second, a tree that takes
// longer than that is executed once at a time rather than once per version
// at the same time, each slowing the others down.
type lane struct {
	running *flight // never nil while the lane is in Cache.lanes
	next    *flight // the requests waiting for the next execution, or nil
}

// flight is one execution of a lane and the requests it serves.
type flight struct {
	// since and top are the lowest and highest versions of its requests.
	since, top int64
	calls      int           // the calls it serves
	started    bool          // compute has begun: top no longer grows
	start      chan struct{} // closed when its leader may compute
	done       chan struct{} // closed when a and sharing are set
	a          Answer
	sharing    Sharing
}

// Do returns the answer kept for k or, when there is none, the answer of
// compute, run once for all the calls asking for k's lane at the same
// time. A call waits for the running execution of its lane when that one
// serves its version (it began at that version or later, and began after
// the calls of lower versions it serves), and otherwise for the next,
// which the first of its calls computes. A call that joined another's
// computation whose answer is its own gets Unshared and no answer: it
// computes its own.
func (c *Cache) Do(k Key, compute Compute) (Answer, Outcome) {
	if a, ok := c.Get(k); ok {
		return a, Hit
	}
	c.supersede(k.Account, k.Version)
	name := k.lane()
	c.lanesMu.Lock()
	l := c.lanes[name]
	var f *flight
	leader := false
	switch {
	case l == nil:
		f = &flight{since: k.Version, top: k.Version, started: true, done: make(chan struct{})}
		c.lanes[name] = &lane{running: f}
		leader = true
	case k.Version == l.running.top || !l.running.started && k.Version <= l.running.top:
		f = l.running
		f.since = min(f.since, k.Version)
	case l.next == nil:
		f = &flight{since: k.Version, top: k.Version, start: make(chan struct{}), done: make(chan struct{})}
		l.next = f
		leader = true
	default:
		f = l.next
		f.since, f.top = min(f.since, k.Version), max(f.top, k.Version)
	}
	f.calls++
	c.lanesMu.Unlock()
	if !leader {
		<-f.done
		if f.sharing == Own {
			return Answer{}, Unshared
		}
		c.metrics.joins.Inc()
		return f.a, Joined
	}
	if f.start != nil {
		<-f.start
	}
	c.lanesMu.Lock()
	f.started = true
	since := f.since
	c.lanesMu.Unlock()
	if a, ok := c.peek(k); ok { // kept by an execution that ended after the Get above
		f.a, f.sharing = a, Keep
	} else {
		c.metrics.misses.Inc()
		f.a, f.sharing = compute(since)
		if f.sharing == Keep {
			c.add(k, f.a)
		}
	}
	c.lanesMu.Lock()
	l = c.lanes[name]
	if l.next != nil {
		l.running, l.next = l.next, nil
		close(l.running.start)
	} else {
		delete(c.lanes, name)
	}
	c.lanesMu.Unlock()
	close(f.done)
	return f.a, Computed
}

// supersede drops the account's answers of versions before version: a
// request read that version, so they are dead (add says why), and from now
// on only answers of that version or later are kept. Done as soon as a
// request of a later version misses, not when its answer is kept: the
// dead trees would otherwise stay live through the whole execution of the
// next one, and the heap's peak (the collector's goal is twice what is
// live) with them.
func (c *Cache) supersede(account string, version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.supersedeLocked(account, version)
}

// supersedeLocked is supersede with c.mu held.
func (c *Cache) supersedeLocked(account string, version int64) {
	acct := c.accounts[account]
	if acct == nil || acct.version >= version {
		return
	}
	for _, el := range acct.items {
		c.remove(el)
		c.metrics.superseded.Inc()
	}
	c.accounts[account] = &kept{version: version, items: map[Key]*list.Element{}}
}

// add keeps a under k, evicting the least recently used answers beyond the
// bound. An answer larger than the bound is not kept.
//
// An account keeps answers of one version, its latest: keeping an answer
// of a later version, or a request of a later version missing (Do,
// supersede), drops the account's answers of earlier ones, and an answer
// of an earlier version than that is not kept. Every request
// reads the version afresh and versions only grow, so no request asks
// for an earlier version's key once a later one was read: those answers
// are dead, and under a check-in a second they would otherwise fill the
// bound (each a tree of megabytes) before the least recently used went.
func (c *Cache) add(k Key, a Answer) {
	size := int64(a.Len()+len(a.ETag)+entryOverhead) + k.size()
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.remove(el)
	}
	c.supersedeLocked(k.Account, k.Version)
	acct := c.accounts[k.Account]
	switch {
	case acct == nil:
		acct = &kept{version: k.Version, items: map[Key]*list.Element{}}
		c.accounts[k.Account] = acct
	case k.Version < acct.version:
		return
	}
	el := c.lru.PushFront(&entry{key: k, answer: a, size: size})
	c.items[k] = el
	acct.items[k] = el
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
	if acct := c.accounts[e.key.Account]; acct != nil {
		delete(acct.items, e.key)
		if len(acct.items) == 0 {
			delete(c.accounts, e.key.Account)
		}
	}
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
