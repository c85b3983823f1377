package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// CheckIn records a new actual value of a key result: the history gets a
// snapshot, and the key result, its goal and every ancestor goal get their
// attainment recomputed, all in one transaction. It reads each fact once —
// the key result, its goal, session and owners, the caller's subject and
// the goals on the path with their children's Subtrees, in three
// statements that go to PostgreSQL in one round trip with BEGIN and the
// account's lock — decides in package upstream, and writes the key result,
// the path's figures, the check-in and its events in one more round trip
// with COMMIT: two round trips, nine statements on SQLite
// (TestCheckInStatements). A check-in cannot change the key result's
// owners, so they are not validated again. In a group transaction on
// PostgreSQL (groupshare.go) the facts of the check-ins side by side are
// loaded ahead, together, the caller's subject once, and the group
// recomputes their paths once, before the next other write and before its
// COMMIT.
func (s *Store) CheckIn(ctx context.Context, metricID string, in upstream.CheckInInput) (upstream.CheckIn, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.CheckIn{}, err
	}
	if err := upstream.CheckCheckInInput(in); err != nil {
		return upstream.CheckIn{}, err
	}
	now := s.timestamp()
	ci := upstream.CheckIn{ID: s.ids.New(), AccountID: c.AccountID, MetricID: metricID, Actual: *in.Actual,
		Comment: in.Comment, Confidence: in.Confidence, CreatedByID: c.UserID, DateCreated: now, CheckInDate: now}
	if in.CheckInDate != "" {
		if ci.CheckInDate, err = upstream.ParseTime("checkInDate", in.CheckInDate); err != nil {
			return upstream.CheckIn{}, err
		}
	}
	var ahead *metricFacts // its facts, when its group loaded them ahead (groupShare)
	prefetch := func(q querier) []stmt {
		if !upstream.ValidID(metricID) {
			return nil
		}
		ahead = &metricFacts{withSubject: groupShareOf(q).subjectDue(c)}
		return ahead.stmts(dialectOf(q), c, metricID)
	}
	err = s.checkInTx(ctx, prefetch, func(q querier) error {
		if !upstream.ValidID(metricID) {
			return upstream.NotFound(metrics.kind, metricID)
		}
		q = s.prepared(q) // the statements of a check-in are the same every time
		bulk, share := s.bulk, groupShareOf(q)
		f := ahead
		ahead = nil // a second run of this write (its run fell back) loads its own
		if share != nil && share.ahead && f != nil {
			if err := share.current(f, metricID); err != nil {
				return err
			}
		} else {
			// In a group, the check-ins before it may have derived the
			// caller's subject, and the group recomputes the path.
			known := share != nil && txFactsOf(q).has(c)
			f = &metricFacts{withSubject: bulk == nil && !known, withPath: bulk == nil && share == nil}
			if bulk == nil || !f.fromBatch(q, metricID) {
				if err := s.run(ctx, q, f.stmts(dialectOf(q), c, metricID)...); err != nil {
					return fmt.Errorf("sqlstore: load key result %s: %w", metricID, err)
				}
			}
		}
		m, g, ss := f.m, f.g, f.ss
		switch {
		case !f.found.m:
			return upstream.NotFound(metrics.kind, metricID)
		case !f.found.g:
			return upstream.Invalid("goalId", "no goal %q", m.GoalID)
		case !f.found.ss:
			return upstream.NotFound(sessions.kind, g.SessionID)
		}
		if err := s.decide(ctx, q, c, f, upstream.MetricsCheckIn, upstream.MetricItem(m, g)); err != nil {
			return err
		}
		if err := upstream.SessionGate(ss, upstream.Progress); err != nil {
			return err
		}
		if err := upstream.CheckCheckIn(g, m, ci.Actual); err != nil {
			return err
		}
		ci.GoalID, ci.PreviousActual = g.ID, m.Actual
		m.Actual = ci.Actual
		if in.Confidence != nil {
			m.Confidence = in.Confidence
		}
		if ci.CheckInDate >= m.LastCheckInDate {
			m.LastCheckInDate = ci.CheckInDate
		}
		if err := upstream.CheckMetric(m, ss); err != nil {
			return err
		}
		settle(&m)
		ci.Attainment = m.Attainment
		up, doc, err := updateStmt(metrics, c.AccountID, &m)
		if err != nil {
			return err
		}
		if err := s.queue(ctx, q, up); err != nil {
			return err
		}
		keepDoc(q, metrics.name, m.ID, doc)
		if share != nil {
			share.wrote(m.ID, doc)
		}
		metrics.emitFor(q, c.AccountID, &m, updated)
		switch {
		case bulk != nil:
			if err := s.recompute(ctx, q, c.AccountID, g.ID); err != nil {
				return err
			}
		case share != nil:
			share.recomputeLater(g.ID)
		default:
			if err := f.path.finish(); err != nil {
				return err
			}
			f.path.setAttainment(m.ID, m.Attainment)
			if err := s.recomputePaths(ctx, q, c.AccountID, &f.path); err != nil {
				return err
			}
		}
		// The snapshot is the key result as a read right after would
		// answer it: its stored document with its owners.
		var snap upstream.Metric
		if err := json.Unmarshal(doc, &snap); err != nil {
			return fmt.Errorf("sqlstore: decode key result %s: %w", m.ID, err)
		}
		snap.Assignee, snap.Assignees = ownersOf(f.owners, snap.OwnerID, snap.OwnerIDs)
		cdoc, err := json.Marshal(ci)
		if err != nil {
			return fmt.Errorf("sqlstore: encode check-in: %w", err)
		}
		sdoc, err := json.Marshal(snap)
		if err != nil {
			return fmt.Errorf("sqlstore: encode snapshot: %w", err)
		}
		if err := s.queue(ctx, q, stmt{sql: insertCheckInSQL,
			args: []any{ci.ID, c.AccountID, ci.MetricID, ci.GoalID, string(cdoc), string(sdoc)}}); err != nil {
			return fmt.Errorf("sqlstore: insert check-in: %w", err)
		}
		att := ci.Attainment
		emit(q, upstream.Event{AccountID: c.AccountID, Type: upstream.EventCheckInCreated, ItemID: ci.ID,
			GoalID: g.ID, SessionID: ss.ID, Attainment: &att})
		return nil
	})
	if err != nil {
		return upstream.CheckIn{}, err
	}
	return ci, nil
}

// insertCheckInSQL stores a check-in (parameters: id, account, key result,
// goal, document, snapshot).
const insertCheckInSQL = "INSERT INTO checkins (id, account_id, metric_id, goal_id, doc, snapshot) VALUES (?, ?, ?, ?, ?, ?)"

// decide is authorize on facts already loaded: the subject f holds (or a
// Bulk batch's), and f's session when it is the item's.
func (s *Store) decide(ctx context.Context, q querier, c upstream.Caller, f *metricFacts, action upstream.Action, it *upstream.Item) error {
	var sub *upstream.Subject
	var err error
	if f.withSubject {
		sub, err = f.subject.subject(c)
		if tf := txFactsOf(q); tf != nil && err == nil {
			sub, err = tf.subject(c, func() (*upstream.Subject, error) { return sub, nil })
		}
	} else {
		sub, err = s.loadSubject(ctx, q, c)
	}
	if err != nil {
		return err
	}
	if it.SessionID != f.ss.ID {
		return s.authorize(ctx, q, c, action, it) // not the session loaded
	}
	var sess *upstream.Session
	if !sub.Admin && it.SessionID != "" {
		sess = &f.ss
	}
	return sub.Decide(action, it, sess)
}

// settle fills what a key result derives from its fields: its number of
// owners, attainment and URL (checkMetric does it after validating).
func settle(m *upstream.Metric) {
	m.NumberOfOwners = len(m.OwnerIDs)
	m.Attainment = round(upstream.MetricAttainment(m.ManualType, m.TargetOperator, m.InitialValue, m.Target, m.Actual))
	m.URL = "/results/metrics/" + m.ID
	m.Assignee, m.Assignees = nil, nil
}

// updateStmt returns the statement that replaces v's document and key
// columns (table.update without its read of the rows affected, for a
// write that holds v's row as it read it under the account's lock), and
// the document.
func updateStmt[T any](t table[T], account string, v *T) (stmt, []byte, error) {
	doc, err := json.Marshal(v)
	if err != nil {
		return stmt{}, nil, fmt.Errorf("sqlstore: encode %s: %w", t.kind, err)
	}
	args := append(t.keys(v), string(doc), t.id(v), account)
	return stmt{sql: updateSQL(t), args: args}, doc, nil
}

// updateSQL is the text of updateStmt's statement for t (parameters: t's
// key columns, the document, the id, the account).
func updateSQL[T any](t table[T]) string {
	set := ""
	for _, c := range t.cols {
		set += c + " = ?, "
	}
	return "UPDATE " + t.name + " SET " + set + "doc = ? WHERE id = ? AND account_id = ?"
}

// queueInsert stores a new document v of t with the write's next round
// trip (Store.queue), as table.insert does at once: for the tables whose
// only unique key is a new id, so that an error (a failing database) is
// the write's whatever statement reports it.
func queueInsert[T any](ctx context.Context, s *Store, q querier, t table[T], account string, v *T) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("sqlstore: encode %s: %w", t.kind, err)
	}
	cols := "id, account_id, " + strings.Join(t.cols, ", ") + ", doc"
	ph := strings.TrimSuffix(strings.Repeat("?, ", len(t.cols)+3), ", ")
	args := append(append([]any{t.id(v), account}, t.keys(v)...), string(doc))
	if err := s.queue(ctx, q, stmt{sql: "INSERT INTO " + t.name + " (" + cols + ") VALUES (" + ph + ")", args: args}); err != nil {
		return fmt.Errorf("sqlstore: insert %s: %w", t.kind, err)
	}
	keepDoc(q, t.name, t.id(v), doc)
	t.emitFor(q, account, v, created)
	return nil
}
