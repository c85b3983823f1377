package sqlstore

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// groupShare is what the check-ins side by side in a group transaction
// share (commitGroup). A check-in changes its key result and adds its own
// rows, nothing else another check-in reads: no goal (their paths are
// recomputed by the group), session, owner, user, team, role or grant. So
// the check-ins of a run:
//
//   - derive the caller's subject once;
//   - leave the recomputation of their paths to the group, which runs it
//     once for the run, before the next other write and the COMMIT;
//   - have their facts loaded ahead, all in one round trip at the start of
//     the run (prefetch), each then reading the key result as the run's
//     check-ins before it left it (docs) rather than as loaded.
type groupShare struct {
	facts *txFacts
	goals []string
	// ahead is set while a run's facts, loaded ahead, hold.
	ahead bool
	// asked are the callers whose subject a run's facts load.
	asked map[subjectKey]bool
	// docs are the key results the run's check-ins wrote, by id; last is
	// the one the current check-in wrote, kept once it succeeds (settle).
	docs map[string][]byte
	last *metricDoc
	// events are the events of the run's check-ins, appended with the
	// recomputation's in one statement; lastEvents the current one's, kept
	// once it succeeds (settle).
	events, lastEvents []upstream.Event
}

// metricDoc is a key result's stored document.
type metricDoc struct {
	id  string
	doc []byte
}

// groupRun is the run of check-ins from write first to write end (not
// included) of a group, applied on facts loaded ahead; first is -1 when
// there is none.
type groupRun struct{ first, end int }

// txFacts returns the facts the check-ins of the group share.
func (g *groupShare) txFacts() *txFacts {
	if g.facts == nil {
		g.facts = &txFacts{}
	}
	return g.facts
}

// recomputeLater leaves the path of goal to the group.
func (g *groupShare) recomputeLater(goal string) {
	if !slices.Contains(g.goals, goal) {
		g.goals = append(g.goals, goal)
	}
}

// enterRun starts a run: its facts are about to be loaded.
func (g *groupShare) enterRun() {
	g.ahead, g.asked, g.docs, g.last = true, map[subjectKey]bool{}, map[string][]byte{}, nil
	g.events, g.lastEvents = nil, nil
}

// leaveRun ends a run: what was loaded ahead no longer holds.
func (g *groupShare) leaveRun() {
	g.ahead, g.asked, g.docs, g.last = false, nil, nil, nil
	g.events, g.lastEvents = nil, nil
}

// subjectDue reports whether the facts a check-in of c loads ahead must
// include c's subject: neither derived yet nor loaded by another of the
// run.
func (g *groupShare) subjectDue(c upstream.Caller) bool {
	key := subjectKeyOf(c)
	if g.txFacts().has(c) || g.asked[key] {
		return false
	}
	g.asked[key] = true
	return true
}

// wrote records the key result a check-in of a run is writing.
func (g *groupShare) wrote(id string, doc []byte) {
	if g.ahead {
		g.last = &metricDoc{id: id, doc: doc}
	}
}

// settle keeps the key result the current check-in wrote when it
// succeeded (ok), for the facts of the run's later check-ins.
func (g *groupShare) settle(ok bool) {
	if ok && g.last != nil && g.docs != nil {
		g.docs[g.last.id] = g.last.doc
	}
	if ok && g.ahead {
		g.events = append(g.events, g.lastEvents...)
	}
	g.last, g.lastEvents = nil, nil
}

// keepEvents takes the events of a check-in of a run, to append them with
// the run's recomputation (Store.write); false when q's write is not one.
func (g *groupShare) keepEvents(buf *eventBuf) bool {
	if g == nil || !g.ahead {
		return false
	}
	g.lastEvents = buf.events
	return true
}

// current makes f, loaded ahead, hold key result id as the run's check-ins
// before it left it.
func (g *groupShare) current(f *metricFacts, id string) error {
	doc, ok := g.docs[id]
	if !ok {
		return nil
	}
	var m upstream.Metric
	if err := json.Unmarshal(doc, &m); err != nil {
		return fmt.Errorf("sqlstore: decode key result %s: %w", id, err)
	}
	f.m = m
	return nil
}

// groupShareOf returns what q's write shares with its group, or nil when
// it is not a check-in of a group.
func groupShareOf(q querier) *groupShare {
	switch c := q.(type) {
	case counted:
		return c.share
	case preparedTx:
		return c.count.share
	}
	return nil
}
