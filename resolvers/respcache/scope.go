package respcache

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"

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
	classes  upstream.VisibilityClasser
	known    *lru.Cache[string, classAt]
	flights  singleflight.Group
	accounts *lru.Cache[string, *changes]
}

// changes follows an account's log: lastChange is the last position up to
// checked of an event that may change classes.
type changes struct {
	mu                  sync.Mutex
	checked, lastChange int64
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
func NewScoper(l Log, c upstream.VisibilityClasser) *Scoper {
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
	class, err, _ := s.flights.Do(id+"\x00"+strconv.FormatInt(v, 10), func() (any, error) {
		classes, err := s.classes.VisibilityClasses(ctx, []upstream.Caller{c})
		if err != nil {
			return "", fmt.Errorf("respcache: visibility class: %w", err)
		}
		class := classes[0] + "\x00scopes:" + scopes(c)
		if after, err := s.Version(ctx); err == nil && after == v {
			s.known.Add(id, classAt{v, class})
		}
		return class, nil
	})
	if err != nil {
		return "", err
	}
	return class.(string), nil
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

// keptSince reports whether the events of account after position from up
// to to all keep classes. It reads the events not read yet, once for all
// the account's callers; a gap in the log (pruned events) or more events
// than maxLogReads reads count as a change.
func (s *Scoper) keptSince(ctx context.Context, account string, from, to int64) bool {
	ch, ok := s.accounts.Get(account)
	if !ok {
		ch = &changes{checked: to, lastChange: to} // history unknown: a change
		if prev, found, _ := s.accounts.PeekOrAdd(account, ch); found {
			ch = prev
		}
	}
	ch.mu.Lock()
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
