package sqlstore

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
)

// Every store operation starts the same way: the caller, then the decision
// whether it may perform the operation's action, then the reads or writes.
// The helpers here are that prologue, written once: readAs and writeAs for
// single operations, listPage for every paged list (the caller's visibility
// scope and the source it narrows for goals, key results, check-ins and
// tasks; the action alone for the rest), and deleteByID for the content
// deletes that are a get and a delete.

// readAs returns the caller of ctx and the querier reads use, once the
// caller may perform action (on no item in particular).
func (s *Store) readAs(ctx context.Context, action upstream.Action) (querier, upstream.Caller, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, upstream.Caller{}, err
	}
	q := s.read()
	if err := s.authorize(ctx, q, c, action, nil); err != nil {
		return nil, upstream.Caller{}, err
	}
	return q, c, nil
}

// listing says how a resource of table type T is listed.
type listing[T any] struct {
	action upstream.Action // what lets a caller read the resource
	table  table[T]
	// source, when set, returns the rows the caller's visibility scope
	// lets it see (a subquery and its arguments, for table.listFrom); the
	// decision is then the scope's, derived once per request. Without it
	// the table is read whole, once the caller may perform action.
	source func(ctx context.Context, q querier, c upstream.Caller, sc *scope) (string, []any, error)
	// hidden, when set with source, returns the rows of the table the
	// scope's source leaves out (hiddenRows): the listing counts the
	// table less them rather than the source row by row.
	hidden func(sc *scope) hiddenRows
	// then, when set, adds to a page what a read adds (owners, tags,
	// allowed actions, redaction) for the projection of lq.
	then func(ctx context.Context, q querier, c upstream.Caller, items []T, lq upstream.ListQuery) ([]T, error)
}

// listPage returns the page lq asks for of what l lists, for the caller of
// ctx.
func listPage[T any](ctx context.Context, s *Store, l listing[T], lq upstream.ListQuery) (upstream.Page[T], error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Page[T]{}, err
	}
	q := s.read()
	src, args := l.table.name, []any(nil)
	var hidden hiddenRows
	if l.source == nil {
		if err := s.authorize(ctx, q, c, l.action, nil); err != nil {
			return upstream.Page[T]{}, err
		}
	} else {
		sc, err := s.scopeFor(ctx, q, c)
		if err != nil {
			return upstream.Page[T]{}, err
		}
		if err := sc.rule.Sub.Decide(l.action, nil, nil); err != nil {
			return upstream.Page[T]{}, err
		}
		if src, args, err = l.source(ctx, q, c, sc); err != nil {
			return upstream.Page[T]{}, err
		}
		if l.hidden != nil {
			hidden = l.hidden(sc)
		}
	}
	items, total, err := l.table.listFromHiding(ctx, q, src, args, hidden, c.AccountID, lq)
	if err != nil {
		return upstream.Page[T]{}, err
	}
	if l.then != nil {
		if items, err = l.then(ctx, q, c, items, lq); err != nil {
			return upstream.Page[T]{}, err
		}
	}
	return upstream.Page[T]{Items: items, TotalCount: total}, nil
}

// writeAsCaller runs fn in a write transaction for the caller of ctx, once the
// caller may perform action (on no item in particular).
func (s *Store) writeAsCaller(ctx context.Context, action upstream.Action, fn func(q querier, c upstream.Caller) error) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, action, nil); err != nil {
			return err
		}
		return fn(q, c)
	})
}

// writeAs is writeAsCaller for a write that answers with what fn leaves in v: *v
// once it committed, the zero T after a failure.
func writeAs[T any](ctx context.Context, s *Store, action upstream.Action, v *T, fn func(q querier, c upstream.Caller) error) (T, error) {
	if err := s.writeAsCaller(ctx, action, fn); err != nil {
		var zero T
		return zero, err
	}
	return *v, nil
}

// deleteByID deletes the document id of t for the caller of ctx, once it
// may perform action; not_found when there is none.
func deleteByID[T any](ctx context.Context, s *Store, t table[T], action upstream.Action, id string) error {
	return s.writeAsCaller(ctx, action, func(q querier, c upstream.Caller) error {
		if _, err := t.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		return t.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}

// scoped adapts a source that needs only the account and the scope (the
// key results, check-ins and tasks a scope lets its caller see) to
// listing.source.
func scoped(src func(account string, sc *scope) (string, []any)) func(context.Context, querier, upstream.Caller, *scope) (string, []any, error) {
	return func(_ context.Context, _ querier, c upstream.Caller, sc *scope) (string, []any, error) {
		s, args := src(c.AccountID, sc)
		return s, args, nil
	}
}
