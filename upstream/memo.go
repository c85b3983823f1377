package upstream

import (
	"context"
	"sync"
)

// A Memo holds what a backend derives from the caller once per request —
// for the SQL store, the caller's roles, teams and grants — so that the many
// operations behind one GraphQL query, or the several checks behind one REST
// call, do not derive it again. The HTTP layers attach one to every
// authenticated request (WithMemo); a backend writes through it and clears
// it after every write it commits, so a request never decides on what its
// own writes changed. It is safe for concurrent use.
type Memo struct {
	mu sync.Mutex
	m  map[any]any
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

// Get returns the value stored under key.
func (m *Memo) Get(key any) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[key]
	return v, ok
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
