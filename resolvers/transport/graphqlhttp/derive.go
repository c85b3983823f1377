package graphqlhttp

import (
	"context"

	"github.com/okrgate/okrgate/graph/fastpath"
	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/respcache"
)

// Answers derived after check-ins: an execution of a shared answer is
// given what the previous execution of its lane (its request and class)
// kept, and the items the writes since changed when those were check-ins
// only; the fast path then reads those items again and reuses the rest
// of the previous answer (fastpath.Reuse). docs/graphql-execution.md
// ("Answers derived after check-ins") states the rule.

// derivation is one execution's reuse and the data version read before
// it began.
type derivation struct {
	reuse   *fastpath.Reuse
	version int64
}

// derivation returns ctx with the reuse of an execution of key's lane:
// its lane's base when every write since the base's version changed only
// figures, nothing to derive from otherwise; either way the execution
// keeps what the next one may derive from. Without a readable version
// the execution runs as before, keeping nothing.
func (s *Shared) derivation(ctx context.Context, key respcache.Key) (context.Context, *derivation) {
	if s.Full {
		return ctx, nil
	}
	// The version now, before the execution reads anything: every item
	// the execution reads, and every item it keeps from the base (which
	// no write since the base's version changed), shows this version or a
	// later one.
	v, err := s.Scoper.Version(ctx)
	if err != nil {
		return ctx, nil
	}
	var prev *fastpath.Kept
	var changed map[string]map[string]bool
	if b, ok := s.Cache.TakeBase(key); ok && b.Version <= v {
		if c, ok := s.Scoper.FigureChanges(ctx, b.Version, v); ok {
			prev, _ = b.Kept.(*fastpath.Kept)
			changed = map[string]map[string]bool{"Goal": c.Goals, "Metric": c.Metrics}
		}
	}
	d := &derivation{reuse: fastpath.NewReuse(prev, changed), version: v}
	return resolvers.WithReuse(ctx, d.reuse), d
}

// keepBase counts how the execution ran and keeps what it kept as its
// lane's base: call it once the answer is written, when it is shared
// (an answer with errors keeps nothing).
func (s *Shared) keepBase(key respcache.Key, d *derivation) {
	if d == nil {
		return
	}
	derived, full := d.reuse.Outcomes()
	if derived+full > 0 {
		s.Cache.CountExecution(full == 0)
	}
	if k := d.reuse.Kept(); k != nil {
		s.Cache.PutBase(key, respcache.Base{Version: d.version, Kept: k, Size: k.Size()})
	}
}
