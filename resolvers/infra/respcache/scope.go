package respcache

import (
	"context"
	"fmt"
	"strings"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/okrgate/okrgate/upstream"
)

// Scope is what an answer depends on besides the request: the account, the
// caller's visibility class in it, and the account's data version.
type Scope struct {
	Account string
	// Class is the caller's visibility class (upstream.VisibilityClassOf),
	// with the scopes of its token: callers of one class are decided alike
	// on every item.
	Class string
	// Version is the position of the account's event log.
	Version int64
}

// Log is the event log of the caller's account (upstream.EventLog): its
// position is the account's data version, which every write moves in its
// own transaction, and its events say whether a write may have changed a
// visibility class.
type Log interface {
	// Head returns the last position of the caller's account.
	Head(ctx context.Context) (int64, error)
	// Events returns up to limit events after position after.
	Events(ctx context.Context, after int64, limit int) ([]upstream.Event, error)
}

// DefaultClasses bounds the identities whose class a Scoper keeps.
const DefaultClasses = 10_000

// Scoper finds the scope of a request's caller: the data version, read
// afresh for every request, and the visibility class, derived once per
// identity (account, user, roles, token scopes) and kept across the
// versions whose events all keep classes (upstream.KeepsClasses): check-ins
// do not make anyone derive a class again.
type Scoper struct {
	log      Log
	classes  upstream.NamedClasser
	known    *lru.Cache[string, classAt]
	accounts *lru.Cache[string, *changes]
}

// changes follows an account's log: lastChange is the last position up to
// checked of an event that may change classes. It also gathers the
// account's callers whose classes are being derived (derive), and keeps
// which users the account's items name (named, read at version namedAt),
// for the versions whose events keep classes.
type changes struct {
	mu                  sync.Mutex
	checked, lastChange int64
	deriving            bool   // a batch is being derived
	next                *batch // the callers waiting for the next one
	named               map[string]bool
	namedAt             int64
}

// maxLogReads bounds the reads of the log that follow an account's
// changes at once; past it, classes are derived again.
const maxLogReads = 8

// classAt is a class derived at a version.
type classAt struct {
	version int64
	class   string
}

// NewScoper returns a Scoper reading the log l and deriving classes with
// c (the same store, so that both describe one database).
func NewScoper(l Log, c upstream.NamedClasser) *Scoper {
	known, _ := lru.New[string, classAt](DefaultClasses) // positive sizes: no error
	accounts, _ := lru.New[string, *changes](DefaultClasses)
	return &Scoper{log: l, classes: c, known: known, accounts: accounts}
}

// Scope returns the scope of the caller of ctx, now.
func (s *Scoper) Scope(ctx context.Context) (Scope, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return Scope{}, err
	}
	v, err := s.Version(ctx)
	if err != nil {
		return Scope{}, err
	}
	class, err := s.class(ctx, c, v)
	if err != nil {
		return Scope{}, err
	}
	return Scope{Account: c.AccountID, Class: class, Version: v}, nil
}

// Version returns the data version of the caller's account, now.
func (s *Scoper) Version(ctx context.Context) (int64, error) {
	v, err := s.log.Head(ctx)
	if err != nil {
		return 0, fmt.Errorf("respcache: data version: %w", err)
	}
	return v, nil
}

// class returns the class of c at version v: kept, or derived now. A
// derived class is kept only when the version did not move while it was
// derived, so that it is the class at v exactly.
func (s *Scoper) class(ctx context.Context, c upstream.Caller, v int64) (string, error) {
	id := identity(c)
	if k, ok := s.known.Get(id); ok && (k.version == v || k.version < v && s.keptSince(ctx, c.AccountID, k.version, v)) {
		if k.version != v {
			s.known.Add(id, classAt{v, k.class})
		}
		return k.class, nil
	}
	return s.derive(ctx, c)
}

// derive derives the class of c now, with the callers of its account
// whose classes are wanted at the same time: while one derivation of the
// account runs, the callers that arrive join the next, and that one
// derives them all in one VisibilityClasses call (which reads the
// account's documents once however many callers it is given). A burst of
// new callers costs two derivations, not one per caller.
func (s *Scoper) derive(ctx context.Context, c upstream.Caller) (string, error) {
	ch := s.account(c.AccountID)
	ch.mu.Lock()
	b := ch.next
	if b == nil {
		b = &batch{done: make(chan struct{}), index: map[string]int{}}
		ch.next = b
	}
	id := identity(c)
	i, ok := b.index[id]
	if !ok {
		i = len(b.callers)
		b.index[id] = i
		b.callers = append(b.callers, c)
	}
	lead := !ch.deriving
	if lead {
		ch.deriving, ch.next = true, nil
	}
	ch.mu.Unlock()
	if lead {
		// One goroutine runs this batch and every batch formed meanwhile;
		// it serves callers besides this one, so it does not stop when
		// this request does.
		go s.runBatches(context.WithoutCancel(ctx), ch, b)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if b.err != nil {
		return "", b.err
	}
	return b.classes[i], nil
}

// batch is the callers of one account whose classes one derivation finds.
type batch struct {
	callers []upstream.Caller
	index   map[string]int // identity → position in callers
	done    chan struct{}  // closed when classes or err is set
	classes []string
	err     error
}

// runBatches derives b, then the batches that formed while it ran, until
// none is waiting.
func (s *Scoper) runBatches(ctx context.Context, ch *changes, b *batch) {
	for b != nil {
		s.deriveBatch(ctx, ch, b)
		close(b.done)
		ch.mu.Lock()
		b, ch.next = ch.next, nil
		if b == nil {
			ch.deriving = false
		}
		ch.mu.Unlock()
	}
}

// deriveBatch derives the classes of b's callers, and keeps them when the
// version did not move meanwhile. Which users the account's items name is
// read once and kept, like the classes, across the versions whose events
// keep classes: a burst of new callers after a check-in reads no item.
func (s *Scoper) deriveBatch(ctx context.Context, ch *changes, b *batch) {
	before, err := s.Version(ctx)
	if err != nil {
		b.err = err
		return
	}
	account := b.callers[0].AccountID
	named, fresh, err := s.named(ctx, ch, account, before)
	if err != nil {
		b.err = err
		return
	}
	classes, err := s.classes.VisibilityClassesNamed(ctx, b.callers, named)
	if err != nil {
		b.err = fmt.Errorf("respcache: visibility class: %w", err)
		return
	}
	b.classes = make([]string, len(b.callers))
	after, err := s.Version(ctx)
	if err == nil && after == before {
		ch.mu.Lock()
		if fresh && before >= ch.namedAt {
			ch.named, ch.namedAt = named, before
		}
		if ch.checked == 0 {
			// The account's classes are known at before: follow its log
			// from there (keptSince), position before counted as a change.
			ch.checked, ch.lastChange = before, before
		}
		ch.mu.Unlock()
	}
	for i, c := range b.callers {
		b.classes[i] = classes[i] + "\x00scopes:" + scopes(c)
		if err == nil && after == before {
			s.known.Add(identity(c), classAt{before, b.classes[i]})
		}
	}
}

// named returns which users of account its items name at version v: kept
// from an earlier version when every event since keeps classes, or read
// now (fresh).
func (s *Scoper) named(ctx context.Context, ch *changes, account string, v int64) (named map[string]bool, fresh bool, err error) {
	ch.mu.Lock()
	named, at := ch.named, ch.namedAt
	ch.mu.Unlock()
	if named != nil && (at == v || at < v && s.keptSince(ctx, account, at, v)) {
		return named, false, nil
	}
	named, err = s.classes.NamedUsers(ctx, account)
	if err != nil {
		return nil, false, fmt.Errorf("respcache: named users: %w", err)
	}
	return named, true, nil
}

// identity is what a caller's class is derived from: its account, user
// and roles, and its token's scopes.
func identity(c upstream.Caller) string {
	return c.AccountID + "\x00" + c.UserID + "\x00" + strings.Join(c.Roles, ",") + "\x00" + scopes(c)
}

// scopes names the token's scopes; "*" when unrestricted (nil).
func scopes(c upstream.Caller) string {
	if c.Scopes == nil {
		return "*"
	}
	parts := make([]string, len(c.Scopes))
	for i, sc := range c.Scopes {
		parts[i] = string(sc)
	}
	return strings.Join(parts, ",")
}

// KeptSince reports whether every event of account after position from up
// to to keeps visibility classes (upstream.KeepsClasses): an answer
// computed for a class at from while the version moved to to is then
// still decided as for that class.
func (s *Scoper) KeptSince(ctx context.Context, account string, from, to int64) bool {
	return s.keptSince(ctx, account, from, to)
}

// account returns the follower of an account's log.
func (s *Scoper) account(account string) *changes {
	ch, ok := s.accounts.Get(account)
	if !ok {
		ch = &changes{}
		if prev, found, _ := s.accounts.PeekOrAdd(account, ch); found {
			ch = prev
		}
	}
	return ch
}

// keptSince reports whether the events of account after position from up
// to to all keep classes. It reads the events not read yet, once for all
// the account's callers; a gap in the log (pruned events) or more events
// than maxLogReads reads count as a change.
func (s *Scoper) keptSince(ctx context.Context, account string, from, to int64) bool {
	ch := s.account(account)
	ch.mu.Lock()
	if ch.checked == 0 { // history unknown: a change
		ch.checked, ch.lastChange = to, to
	}
	defer ch.mu.Unlock()
	for reads := 0; ch.checked < to; reads++ {
		events, err := s.log.Events(ctx, ch.checked, upstream.MaxEventsPerRead)
		if err != nil || reads == maxLogReads || len(events) == 0 || events[0].Position != ch.checked+1 {
			ch.checked, ch.lastChange = to, to
			break
		}
		for _, e := range events {
			if !upstream.KeepsClasses(e) {
				ch.lastChange = e.Position
			}
			ch.checked = e.Position
		}
	}
	return ch.lastChange <= from
}
