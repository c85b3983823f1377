package sqlstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// itemFacts are what a write on goals, key results or tasks decides on,
// loaded in one round trip (docs/decisions/writes.md, "A write reads each fact
// once"): the goals and key results it names, the goals of those key
// results, their sessions and the sessions it names, the users and teams
// that own them or that it names, optionally the key results and tasks
// below goals and the tags of an item — one statement (itemFactsSQL) — and
// beside it the caller's subject (subjectSQL) and the paths to recompute
// (pathFactsSQL). A Bulk batch's documents are taken from the batch when it
// holds them all (then nothing is read).
type itemFacts struct {
	// What to load.
	goalIDs, metricIDs, sessionIDs, ownerIDs []string
	parentsOf                                []string // goals whose parents to load
	kidsOf                                   []string // goals whose key results and tasks to load
	pathOf                                   []string // goals whose paths to load (not in a batch)
	tagsOf                                   string   // the item whose tags to load
	countTasksOf                             string   // the parent whose tasks to count
	noSubject                                bool     // the write decides through Store.authorize

	// What was loaded.
	goals    map[string]upstream.Goal
	metrics  map[string]upstream.Metric
	sessions map[string]upstream.Session
	tasks    []upstream.Task // the tasks below kidsOf
	owners   map[string]upstream.Assignee
	tags     []upstream.Tag
	counted  taskCounts // the tasks of countTasksOf
	subject  subjectFacts
	path     pathFacts
	// withSubject and withPath say that subject and path were loaded
	// (not a Bulk batch's, which derives its subject once and folds its
	// paths at its end).
	withSubject, withPath bool
}

// itemFactsSQL loads the documents of itemFacts (parameters, in order:
// account, goal ids, account, key-result ids, account, goal ids whose
// parents to load, account, goal ids whose key
// results to load, account, key-result ids, account, session ids, account,
// key-result ids, account, goal ids whose tasks to load, account, goal ids
// whose key results' tasks to load, account, owner ids, account, account,
// owner ids, account). Rows are a kind and a document; a document may come
// more than once.
func itemFactsSQL(d dialect) string {
	in := inIDs(d)
	return `WITH g AS (
			SELECT session_id, doc FROM goals WHERE account_id = ? AND id` + in + `
			UNION ALL SELECT goals.session_id, goals.doc FROM metrics JOIN goals ON goals.id = metrics.goal_id AND goals.account_id = metrics.account_id
				WHERE metrics.account_id = ? AND metrics.id` + in + `
			UNION ALL SELECT p.session_id, p.doc FROM goals c JOIN goals p ON p.id = c.parent_id AND p.account_id = c.account_id
				WHERE c.account_id = ? AND c.id` + in + `),
		m AS (
			SELECT session_id, doc FROM metrics WHERE account_id = ? AND goal_id` + in + `
			UNION ALL SELECT session_id, doc FROM metrics WHERE account_id = ? AND id` + in + `),
		si AS (
			SELECT session_id AS id FROM g UNION ALL SELECT session_id FROM m
			UNION ALL SELECT id FROM sessions WHERE account_id = ? AND id` + in + `),
		t AS (
			SELECT doc FROM tasks WHERE account_id = ? AND parent_id` + in + `
			UNION ALL SELECT tasks.doc FROM metrics JOIN tasks ON tasks.parent_id = metrics.id AND tasks.account_id = metrics.account_id
				WHERE metrics.account_id = ? AND metrics.goal_id` + in + `),
		o AS (
			SELECT e.value AS id FROM g, ` + d.each("g.doc", "e", "ownerIds") + `
			UNION ALL SELECT e.value FROM m, ` + d.each("m.doc", "e", "ownerIds") + `
			UNION ALL SELECT id FROM users WHERE account_id = ? AND id` + in + `
			UNION ALL SELECT id FROM teams WHERE account_id = ? AND id` + in + `)
	SELECT 'goal', CAST(doc AS TEXT) FROM g
	UNION ALL SELECT 'metric', CAST(doc AS TEXT) FROM m
	UNION ALL SELECT 'session', CAST(doc AS TEXT) FROM sessions WHERE account_id = ? AND id IN (SELECT id FROM si)
	UNION ALL SELECT 'task', CAST(doc AS TEXT) FROM t
	UNION ALL SELECT 'user', CAST(doc AS TEXT) FROM users WHERE account_id = ? AND id IN (SELECT id FROM o)
	UNION ALL SELECT 'team', CAST(doc AS TEXT) FROM teams WHERE account_id = ? AND id IN (SELECT id FROM o)`
}

// inIDs is the condition "in the id list parameter" (with a leading
// space). On PostgreSQL it is "= ANY(ARRAY(...))", which the planner takes
// as an index condition on (account_id, id) whatever its statistics say:
// with "IN (SELECT ...)", a plan made while an account's tables were
// nearly empty (a seed's first writes, or a new account's) kept scanning
// all the account's rows for each write once they held thousands — a
// 10,000-objective seed spent 54 of its 85 s in this statement.
func inIDs(d dialect) string {
	if d.name() == "postgres" {
		return " = ANY(ARRAY" + idList + ")"
	}
	return " IN " + idList
}

// itemTagsSQL loads the tags of items in the order they were added
// (parameters: account, a JSON array of item ids).
const itemTagsSQL = `SELECT it.item_id, t.doc FROM item_tags it JOIN tags t ON t.id = it.tag_id AND t.account_id = it.account_id
		WHERE it.account_id = ? AND it.item_id IN (SELECT value FROM json_each(?)) ORDER BY it.added, t.name`

// load reads f for caller c through q: from q's Bulk batch when it holds
// every document, else in one round trip.
func (f *itemFacts) load(ctx context.Context, s *Store, q querier, c upstream.Caller) error {
	// A write that runs again (a group's, group commit) loads afresh.
	f.goals, f.metrics, f.sessions = map[string]upstream.Goal{}, map[string]upstream.Metric{}, map[string]upstream.Session{}
	f.owners, f.tasks, f.tags, f.counted = map[string]upstream.Assignee{}, nil, nil, taskCounts{}
	f.subject, f.path = subjectFacts{}, pathFacts{}
	f.withSubject, f.withPath = s.bulk == nil && !f.noSubject, s.bulk == nil && len(f.pathOf) > 0
	if s.bulk != nil && f.fromBatch(q) {
		return nil
	}
	d, a := dialectOf(q), c.AccountID
	docs := docsStmt(itemFactsSQL(d), []any{
		a, idsParam(nonEmpty(f.goalIDs)), a, idsParam(nonEmpty(f.metricIDs)), a, idsParam(nonEmpty(f.parentsOf)),
		a, idsParam(nonEmpty(f.kidsOf)), a, idsParam(nonEmpty(f.metricIDs)),
		a, idsParam(nonEmpty(f.sessionIDs)),
		a, idsParam(nonEmpty(f.kidsOf)), a, idsParam(nonEmpty(f.kidsOf)),
		a, idsParam(nonEmpty(f.ownerIDs)), a, idsParam(nonEmpty(f.ownerIDs)),
		a, a, a,
	}, func(kind string, doc []byte) error { return f.add(q, kind, doc) })
	stmts := []stmt{docs}
	if f.withSubject {
		stmts = append(stmts, subjectStmt(d, c, &f.subject))
	}
	if f.withPath {
		stmts = append(stmts, pathFactsStmt(a, f.pathOf, &f.path))
	}
	if f.tagsOf != "" {
		stmts = append(stmts, stmt{sql: itemTagsSQL, args: []any{a, idsParam([]string{f.tagsOf})},
			rows: func(scan func(...any) error) error {
				var item string
				var raw []byte
				if err := scan(&item, &raw); err != nil {
					return err
				}
				var t upstream.Tag
				if err := json.Unmarshal(raw, &t); err != nil {
					return fmt.Errorf("decode tag: %w", err)
				}
				f.tags = append(f.tags, t)
				return nil
			}})
	}
	if f.countTasksOf != "" {
		stmts = append(stmts, stmt{sql: taskCountsSQL, args: []any{a, idsParam([]string{f.countTasksOf})},
			rows: func(scan func(...any) error) error {
				var pid string
				var live *int64
				var all int64
				if err := scan(&pid, &all, &live); err != nil {
					return err
				}
				f.counted.all = int(all)
				if live != nil {
					f.counted.live = int(*live)
				}
				return nil
			}})
	}
	if err := s.run(ctx, q, stmts...); err != nil {
		return fmt.Errorf("sqlstore: load facts: %w", err)
	}
	if f.withPath {
		if err := f.path.finish(); err != nil {
			return err
		}
	}
	slices.SortFunc(f.tasks, func(x, y upstream.Task) int { return cmp.Compare(x.ID, y.ID) })
	return nil
}

// add records one document of itemFactsSQL, and keeps it in q's Bulk
// batch, if any, so that the batch's next writes need not read it.
func (f *itemFacts) add(q querier, kind string, doc []byte) error {
	b := batchDocsOf(q)
	if b != nil {
		doc = bytes.Clone(doc)
	}
	var err error
	switch kind {
	case "goal":
		err = keepFact(q, goals, f.goals, doc)
	case "metric":
		err = keepFact(q, metrics, f.metrics, doc)
	case "session":
		err = keepFact(q, sessions, f.sessions, doc)
	case "task":
		var t upstream.Task
		if err = json.Unmarshal(doc, &t); err == nil && !slices.ContainsFunc(f.tasks, func(o upstream.Task) bool { return o.ID == t.ID }) {
			f.tasks = append(f.tasks, t)
		}
	default:
		var a upstream.Assignee
		if a, err = decodeAssignee(kind, doc); err == nil {
			f.owners[a.ID] = a
			if b != nil {
				b.assignees[a.ID] = a
			}
		}
	}
	if err != nil {
		return fmt.Errorf("sqlstore: decode %s: %w", kind, err)
	}
	return nil
}

// keepFact decodes a document of t into into, by id, and keeps it in q's
// Bulk batch, if any.
func keepFact[T any](q querier, t table[T], into map[string]T, doc []byte) error {
	var v T
	if err := json.Unmarshal(doc, &v); err != nil {
		return err
	}
	id := t.id(&v)
	into[id] = v
	keepDoc(q, t.name, id, doc)
	return nil
}

// fromBatch fills f from what q's Bulk batch holds and reports whether it
// held everything f asks for (tags, task counts and the items below goals
// are never held).
func (f *itemFacts) fromBatch(q querier) bool {
	b := batchDocsOf(q)
	if b == nil || f.tagsOf != "" || f.countTasksOf != "" || len(f.kidsOf) > 0 || len(f.parentsOf) > 0 {
		return false
	}
	if !fromCache(q, metrics, nonEmpty(f.metricIDs), f.metrics) {
		return false
	}
	goalIDs, owners := nonEmpty(f.goalIDs), nonEmpty(f.ownerIDs)
	for _, m := range f.metrics {
		goalIDs, owners = append(goalIDs, m.GoalID), append(owners, m.OwnerIDs...)
	}
	if !fromCache(q, goals, goalIDs, f.goals) {
		return false
	}
	sessionIDs := nonEmpty(f.sessionIDs)
	for _, g := range f.goals {
		sessionIDs, owners = append(sessionIDs, g.SessionID), append(owners, g.OwnerIDs...)
	}
	if !fromCache(q, sessions, sessionIDs, f.sessions) {
		return false
	}
	for _, id := range owners {
		a, ok := b.assignees[id]
		if !ok {
			return false
		}
		f.owners[id] = a
	}
	return true
}

// fromCache fills into with the documents ids of t that q's Bulk batch
// holds, and reports whether it held them all.
func fromCache[T any](q querier, t table[T], ids []string, into map[string]T) bool {
	for _, id := range ids {
		v, ok := cachedDoc[T](q, t.name, id)
		if !ok {
			return false
		}
		into[id] = v
	}
	return true
}

// checkOwners verifies that every id names a user or team f loaded
// (Store.checkOwners on loaded facts).
func (f *itemFacts) checkOwners(field string, ids []string) error {
	for _, id := range ids {
		if _, ok := f.owners[id]; !ok {
			return upstream.Invalid(field, "no user or team %q", id)
		}
	}
	return nil
}

// decide asks whether c may perform action on it, on the facts loaded: the
// subject f holds (or the batch's) and the item's session among f's
// sessions (Store.authorize on loaded facts).
func (f *itemFacts) decide(ctx context.Context, s *Store, q querier, c upstream.Caller, action upstream.Action, it *upstream.Item) error {
	sub, err := f.subjectOf(ctx, s, q, c)
	if err != nil {
		return err
	}
	var sess *upstream.Session
	if !sub.Admin && it != nil && it.SessionID != "" && it.Kind != "session" {
		ss, ok := f.sessions[it.SessionID]
		if !ok {
			return s.authorize(ctx, q, c, action, it) // a session f did not load
		}
		sess = &ss
	}
	return sub.Decide(action, it, sess)
}

// subjectOf returns c's subject: derived from f's facts once per
// transaction, or the batch's.
func (f *itemFacts) subjectOf(ctx context.Context, s *Store, q querier, c upstream.Caller) (*upstream.Subject, error) {
	if !f.withSubject {
		return s.loadSubject(ctx, q, c)
	}
	derive := func() (*upstream.Subject, error) { return f.subject.subject(c) }
	if tf := txFactsOf(q); tf != nil {
		return tf.subject(c, derive)
	}
	return derive()
}

// visibleGoal is Store.visibleGoal on loaded facts: a goal the caller may
// not see is bad input in field, as if it did not exist.
func (f *itemFacts) visibleGoal(ctx context.Context, s *Store, q querier, c upstream.Caller, id, field string) (upstream.Goal, error) {
	g, ok := f.goals[id]
	if !ok {
		return upstream.Goal{}, upstream.Invalid(field, "no goal %q", id)
	}
	if err := f.decide(ctx, s, q, c, upstream.GoalsRead, upstream.GoalItem(g)); err != nil {
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			return upstream.Goal{}, upstream.Invalid(field, "no goal %q", id)
		}
		return upstream.Goal{}, err
	}
	return g, nil
}

// applyFigures sets g's derived fields to what a recomputation folded.
func applyFigures(g *upstream.Goal, f storedFigures) {
	g.Attainment, g.AggregatedAttainment = f.Attainment, f.Aggregated
	g.ChildrenAggregatedAttainment, g.FullAggregatedAttainment = f.ChildrenAggregated, f.FullAggregated
	g.ChildrenCount, g.SubTreeCount, g.FullSubTreeCount = int(f.Children), int(f.SubTree), int(f.FullSubTree)
	g.MetricsCount, g.TasksCount, g.NonArchivedTasksCount = int(f.Metrics), int(f.Tasks), int(f.NonArchivedTasks)
}

// asStored returns v as a read of its stored document decodes it.
func asStored[T any](v T) (T, error) {
	var out T
	doc, err := json.Marshal(v)
	if err != nil {
		return out, fmt.Errorf("sqlstore: encode: %w", err)
	}
	if err := json.Unmarshal(doc, &out); err != nil {
		return out, fmt.Errorf("sqlstore: decode: %w", err)
	}
	return out, nil
}

// taskParent is Store.taskParent on loaded facts: it resolves a task's
// parent among f's goals and key results, sets parentType (inferred when
// empty), parentName and sessionId, checks the session's state, and returns
// the goal whose figures the task counts in ("" for none).
func (f *itemFacts) taskParent(t *upstream.Task) (string, error) {
	t.ParentName, t.SessionID = "", ""
	if t.ParentID == "" {
		if t.ParentType != "" {
			return "", upstream.Invalid("parentId", "is required when parentType is set")
		}
		return "", nil
	}
	switch t.ParentType {
	case "", upstream.ParentGoal, upstream.ParentMetric:
	default:
		return "", upstream.Invalid("parentType", "must be goal, metric or empty")
	}
	var goalID string
	if g, ok := f.goals[t.ParentID]; ok && t.ParentType != upstream.ParentMetric {
		t.ParentType, t.ParentName, t.SessionID, goalID = upstream.ParentGoal, g.Name, g.SessionID, g.ID
	} else if m, ok := f.metrics[t.ParentID]; ok && t.ParentType != upstream.ParentGoal {
		t.ParentType, t.ParentName, t.SessionID = upstream.ParentMetric, m.Name, m.SessionID
	}
	if t.ParentName == "" && t.SessionID == "" {
		return "", upstream.Invalid("parentId", "no goal or key result %q", t.ParentID)
	}
	ss, ok := f.sessions[t.SessionID]
	if !ok {
		return "", upstream.NotFound(sessions.kind, t.SessionID)
	}
	if err := upstream.SessionGate(ss, upstream.Progress); err != nil {
		return "", err
	}
	return goalID, nil
}

// taskItem is Store.taskItem on loaded facts.
func (f *itemFacts) taskItem(t upstream.Task) *upstream.Item {
	switch t.ParentType {
	case upstream.ParentGoal:
		if g, ok := f.goals[t.ParentID]; ok {
			return upstream.TaskItem(t, upstream.GoalItem(g))
		}
	case upstream.ParentMetric:
		m, ok := f.metrics[t.ParentID]
		if !ok {
			break
		}
		if g, ok := f.goals[m.GoalID]; ok {
			return upstream.TaskItem(t, upstream.MetricItem(m, g))
		}
	}
	return upstream.TaskItem(t, nil)
}

// countNewTask brings the counts of a new task's parent up to date: the
// tasks f counted before it, plus it (Store.taskCounts for a new task).
func (f *itemFacts) countNewTask(ctx context.Context, s *Store, q querier, account string, t upstream.Task, goalID string) error {
	n := f.counted
	n.all++
	if !t.Archived {
		n.live++
	}
	switch {
	case t.ParentType == upstream.ParentMetric:
		m := f.metrics[t.ParentID]
		if m.TasksCount == n.all {
			return nil
		}
		m.TasksCount = n.all
		up, doc, err := updateStmt(metrics, account, &m)
		if err != nil {
			return err
		}
		keepDoc(q, metrics.name, m.ID, doc)
		metrics.emitFor(q, account, &m, updated)
		return s.queue(ctx, q, up)
	case goalID != "":
		g := f.goals[goalID]
		row := goalRow{ID: g.ID, ParentID: g.ParentID, SessionID: g.SessionID, Mode: g.AttainmentTypeString, figures: storedFigures{
			Attainment: g.Attainment, Aggregated: g.AggregatedAttainment, ChildrenAggregated: g.ChildrenAggregatedAttainment,
			FullAggregated: g.FullAggregatedAttainment, Children: int64(g.ChildrenCount), SubTree: int64(g.SubTreeCount),
			FullSubTree: int64(g.FullSubTreeCount), Metrics: int64(g.MetricsCount), Tasks: int64(g.TasksCount),
			NonArchivedTasks: int64(g.NonArchivedTasksCount)}}
		next := row.figures
		next.Tasks, next.NonArchivedTasks = int64(n.all), int64(n.live)
		w := &figureWrites{account: account}
		w.goal(q, row, next, nil)
		return w.queue(ctx, s, q)
	}
	return nil
}
