package upstream

import (
	"context"
	"sync"
)

// A Memo holds what a backend derives from the caller once per request —
// for the SQL store, the caller's roles, teams and grants, and the sessions
// and goals its visibility rules let it see — so that the many
// operations behind one GraphQL query, or the several checks behind one REST
// call, do not derive it again. The HTTP layers attach one to every
// authenticated request (WithMemo); a backend writes through it and clears
// it after every write it commits, so a request never decides on what its
// own writes changed. It is safe for concurrent use.
//
// A facade may also attach its own per-request state to the memo (Attach:
// the GraphQL loaders of the request), so that nothing else of the request
// travels in the context; Clear keeps it.
type Memo struct {
	mu       sync.Mutex
	m        map[any]any
	attached map[any]any
}

type memoKey struct{}

// WithMemo returns a copy of ctx carrying a new, empty Memo.
func WithMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, memoKey{}, &Memo{m: map[any]any{}})
}

// MemoFrom returns the Memo of ctx, or nil when it has none.
func MemoFrom(ctx context.Context) *Memo {
	m, _ := ctx.Value(memoKey{}).(*Memo)
	return m
}

// Get returns the value stored under key (by Put, or by a Derive that has
// finished without error).
func (m *Memo) Get(key any) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[key]
	if _, pending := v.(*pending); pending {
		return nil, false
	}
	return v, ok
}

// Derive returns the value stored under key, deriving it with derive when
// there is none. Concurrent callers of one key (a GraphQL query's loaders
// run in parallel) wait for a single derivation and share its result; an
// error is returned to them but not kept, so a later call derives again.
// key must be comparable.
func (m *Memo) Derive(key any, derive func() (any, error)) (any, error) {
	m.mu.Lock()
	if v, ok := m.m[key]; ok {
		m.mu.Unlock()
		if p, isPending := v.(*pending); isPending {
			<-p.done
			return p.v, p.err
		}
		return v, nil
	}
	p := &pending{done: make(chan struct{})}
	m.m[key] = p
	m.mu.Unlock()
	defer close(p.done)
	p.v, p.err = derive()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m[key] == p { // not cleared meanwhile
		if p.err != nil {
			delete(m.m, key)
		} else {
			m.m[key] = p.v
		}
	}
	return p.v, p.err
}

// pending is a derivation of Derive under way.
type pending struct {
	done chan struct{}
	v    any
	err  error
}

// Put stores v under key; key must be comparable.
func (m *Memo) Put(key, v any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[key] = v
}

// Clear drops every value.
func (m *Memo) Clear() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.m)
}

// Attach stores v under key for the rest of the request; Clear keeps it.
// key must be comparable.
func (m *Memo) Attach(key, v any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.attached == nil {
		m.attached = map[any]any{}
	}
	m.attached[key] = v
}

// Attached returns what Attach stored under key, or nil.
func (m *Memo) Attached(key any) any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.attached[key]
}
