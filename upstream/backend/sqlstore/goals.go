package sqlstore

import (
	"context"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// maxName bounds names and titles (upstream.MaxNameLength).
const maxName = upstream.MaxNameLength

// ListGoals lists goals. Key results and tasks are embedded when the
// projection names them.
func (s *Store) ListGoals(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Goal], error) {
	return listPage(ctx, s, listing[upstream.Goal]{action: upstream.GoalsRead, table: goals,
		source: func(ctx context.Context, q querier, c upstream.Caller, sc *scope) (string, []any, error) {
			return s.goalSource(ctx, q, c.AccountID, sc)
		},
		then: func(ctx context.Context, q querier, c upstream.Caller, items []upstream.Goal, lq upstream.ListQuery) ([]upstream.Goal, error) {
			if err := s.enrichGoals(ctx, q, c.AccountID, items, lq.Fields, false); err != nil {
				return nil, err
			}
			return items, s.redactGoals(ctx, q, c, items, lq.Fields)
		}}, lq)
}

// GetGoal returns one goal with its key results.
func (s *Store) GetGoal(ctx context.Context, id string) (upstream.Goal, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Goal{}, err
	}
	q := s.read()
	g, err := goals.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.Goal{}, err
	}
	if err := s.authorize(ctx, q, c, upstream.GoalsRead, upstream.GoalItem(g)); err != nil {
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			return s.goalStub(ctx, q, c, g, err)
		}
		return upstream.Goal{}, err
	}
	gs := []upstream.Goal{g}
	if err := s.enrichGoals(ctx, q, c.AccountID, gs, nil, true); err != nil {
		return upstream.Goal{}, err
	}
	if err := s.redactGoals(ctx, q, c, gs, nil); err != nil {
		return upstream.Goal{}, err
	}
	return gs[0], nil
}

func (s *Store) getGoal(ctx context.Context, q querier, account, id string) (upstream.Goal, error) {
	g, err := goals.get(ctx, q, account, id)
	if err != nil {
		return upstream.Goal{}, err
	}
	gs := []upstream.Goal{g}
	if err := s.enrichGoals(ctx, q, account, gs, nil, true); err != nil {
		return upstream.Goal{}, err
	}
	return gs[0], nil
}

// CreateGoal creates a goal in an open session.
func (s *Store) CreateGoal(ctx context.Context, in upstream.GoalInput) (upstream.Goal, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Goal{}, err
	}
	now := s.timestamp()
	g := upstream.Goal{
		ID: s.ids.New(), AccountID: c.AccountID, Name: strings.TrimSpace(in.Name), Description: in.Description,
		RichTextDescription: in.RichTextDescription, SessionID: in.SessionID, ParentID: in.ParentID,
		AttainmentTypeString: in.AttainmentTypeString, Private: in.Private, OrderID: in.OrderID,
		ClosedStatus: upstream.ClosedStatus{Status: upstream.GoalActive},
		CreatedByID:  c.UserID, ModifiedByID: c.UserID, DateCreated: now,
		Watchers: nonNil(in.Watchers),
	}
	upstream.CopyFields(&g, in) // the fields stored as given (upstream.CopyTag)
	if in.ClosedStatus != nil {
		g.ClosedStatus = *in.ClosedStatus
	}
	g.OwnerID, g.OwnerIDs = upstream.Owners(in.OwnerID, in.OwnerIDs, c.UserID)
	if g.AttainmentTypeString == "" {
		g.AttainmentTypeString = upstream.AverageKR
	}
	if g.DateFrom, err = upstream.ParseTime("dateFrom", in.DateFrom); err != nil {
		return upstream.Goal{}, err
	}
	if g.DateTo, err = upstream.ParseTime("dateTo", in.DateTo); err != nil {
		return upstream.Goal{}, err
	}
	for i, t := range in.Tags {
		if upstream.TagName(t.Title) == "" {
			return upstream.Goal{}, upstream.Invalid("tags", "tag %d has an empty title", i)
		}
	}
	err = s.tx(ctx, func(q querier) error {
		if g.SessionID == "" {
			return upstream.Invalid("sessionId", "is required")
		}
		f := &itemFacts{goalIDs: []string{g.ParentID}, sessionIDs: []string{g.SessionID}, ownerIDs: g.OwnerIDs}
		if g.ParentID != "" {
			f.pathOf = []string{g.ParentID}
		}
		if err := f.load(ctx, s, q, c); err != nil {
			return err
		}
		ss, ok := f.sessions[g.SessionID]
		if !ok {
			return upstream.Invalid("sessionId", "no session %q", g.SessionID)
		}
		if err := upstream.SessionGate(ss, upstream.Structure); err != nil {
			return err
		}
		if err := f.decide(ctx, s, q, c, upstream.GoalsCreate, &upstream.Item{Kind: "goal", Owners: g.OwnerIDs, SessionID: ss.ID}); err != nil {
			return err
		}
		if g.ParentID != "" {
			if _, err := f.visibleGoal(ctx, s, q, c, g.ParentID, "parentId"); err != nil {
				return err
			}
		}
		if g.DateFrom == "" {
			g.DateFrom = ss.Start
		}
		if g.DateTo == "" {
			g.DateTo = ss.End
		}
		if err := checkGoal(&g, ss, f); err != nil {
			return err
		}
		if err := s.checkGoalLimit(ctx, q, c.AccountID, ss, g.OwnerID, ""); err != nil {
			return err
		}
		if err := queueInsert(ctx, s, q, goals, c.AccountID, &g); err != nil {
			return err
		}
		for _, t := range in.Tags {
			if _, _, err := s.tagItem(ctx, q, c, g.ID, "goal", t.Title); err != nil {
				return err
			}
		}
		if !f.withPath && g.ParentID != "" || s.bulk != nil {
			if err := s.recompute(ctx, q, c.AccountID, g.ID); err != nil {
				return err
			}
		} else {
			if g.ParentID == "" {
				f.path = pathFacts{path: map[string]*pathNode{}, kids: map[string][]upstream.Child{}, complete: true}
			}
			f.path.addGoal(goalRow{ID: g.ID, ParentID: g.ParentID, SessionID: g.SessionID, Mode: g.AttainmentTypeString})
			if err := s.recomputePaths(ctx, q, c.AccountID, &f.path); err != nil {
				return err
			}
		}
		if s.bulk != nil {
			return nil // a batch returns what it wrote, without a read's enrichment
		}
		figs, ok := f.path.folded[g.ID]
		if !ok || len(in.Tags) > 0 {
			// Folded from scratch (recomputeTree), or tagged: read it back.
			if g, err = s.getGoal(ctx, q, c.AccountID, g.ID); err != nil {
				return err
			}
			return s.goalView(ctx, q, c, &g)
		}
		// The answer is the goal as stored — its document with the
		// figures just folded — with its owners, no tags and no key
		// results, as GetGoal would read it.
		applyFigures(&g, figs)
		if g, err = asStored(g); err != nil {
			return err
		}
		g.Assignee, g.Assignees = ownersOf(f.owners, g.OwnerID, g.OwnerIDs)
		g.Tags, g.Metrics = []upstream.Tag{}, []upstream.Metric{}
		return s.goalView(ctx, q, c, &g)
	})
	if err != nil {
		return upstream.Goal{}, err
	}
	return g, nil
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// checkGoal validates a goal about to be written (upstream.CheckGoal) on
// the facts f loaded: its owners and its parent.
func checkGoal(g *upstream.Goal, ss upstream.Session, f *itemFacts) error {
	return upstream.CheckGoal(g, ss, upstream.GoalFacts{
		OwnerExists: func(id string) bool { _, ok := f.owners[id]; return ok },
		Goal:        func(id string) (upstream.Goal, bool) { p, ok := f.goals[id]; return p, ok },
	})
}

// checkGoalLimit counts the goals owner has in session ss, not counting the
// goal except, and enforces the session's limit (upstream.CheckGoalLimit).
func (s *Store) checkGoalLimit(ctx context.Context, q querier, account string, ss upstream.Session, owner, except string) error {
	if ss.Settings.GoalsPerOwnerLimit <= 0 {
		return nil
	}
	var n int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM goals WHERE account_id = ? AND session_id = ? AND owner_id = ? AND id <> ?",
		account, ss.ID, owner, except).Scan(&n); err != nil {
		return err
	}
	return upstream.CheckGoalLimit(ss, owner, n)
}

// UpdateGoal changes a goal. Moving it (parentId or sessionId) or changing
// its attainment mode recomputes its path to the root and, after a move,
// the old parent's path.
func (s *Store) UpdateGoal(ctx context.Context, id string, in upstream.GoalPatch) (upstream.Goal, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Goal{}, err
	}
	f := &itemFacts{goalIDs: []string{id}, parentsOf: []string{id}, kidsOf: []string{id}, tagsOf: id}
	if in.ParentID != nil {
		f.goalIDs = append(f.goalIDs, *in.ParentID)
	}
	if in.SessionID != nil {
		f.sessionIDs = []string{*in.SessionID}
	}
	var ownerID string
	var ownerIDs []string
	if in.OwnerID != nil || in.OwnerIDs != nil {
		var ids []string
		if in.OwnerIDs != nil {
			ids = *in.OwnerIDs
		}
		if in.OwnerID != nil {
			ownerID = *in.OwnerID
		}
		if in.OwnerIDs == nil && ownerID != "" {
			ids = []string{ownerID}
		}
		ownerID, ownerIDs = upstream.Owners(ownerID, ids, c.UserID)
		f.ownerIDs = ownerIDs
	}
	var g upstream.Goal
	err = s.tx(ctx, func(q querier) error {
		if !upstream.ValidID(id) {
			return upstream.NotFound(goals.kind, id)
		}
		if err := f.load(ctx, s, q, c); err != nil {
			return err
		}
		old, ok := f.goals[id]
		if !ok {
			return upstream.NotFound(goals.kind, id)
		}
		oldSession, ok := f.sessions[old.SessionID]
		if !ok {
			return upstream.NotFound(sessions.kind, old.SessionID)
		}
		if err := f.decide(ctx, s, q, c, upstream.GoalsUpdate, upstream.GoalItem(old)); err != nil {
			return err
		}
		if err := upstream.SessionGate(oldSession, upstream.GoalPatchChange(in)); err != nil {
			return err
		}
		g = old
		set(&g.Name, in.Name, strings.TrimSpace)
		set(&g.Description, in.Description, nil)
		set(&g.RichTextDescription, in.RichTextDescription, nil)
		set(&g.SessionID, in.SessionID, nil)
		set(&g.ParentID, in.ParentID, nil)
		set(&g.AttainmentTypeString, in.AttainmentTypeString, nil)
		upstream.CopyFields(&g, in)
		if ownerIDs != nil {
			g.OwnerID, g.OwnerIDs = ownerID, slices.Clone(ownerIDs)
		}
		if in.DateFrom != nil {
			if g.DateFrom, err = upstream.ParseTime("dateFrom", *in.DateFrom); err != nil {
				return err
			}
		}
		if in.DateTo != nil {
			if g.DateTo, err = upstream.ParseTime("dateTo", *in.DateTo); err != nil {
				return err
			}
		}
		if in.Private != nil {
			g.Private = *in.Private
		}
		if in.OrderID != nil {
			g.OrderID = *in.OrderID
		}
		if in.Watchers != nil {
			g.Watchers = nonNil(*in.Watchers)
		}
		if in.ClosedStatus != nil {
			g.ClosedStatus = *in.ClosedStatus
		}
		ss := oldSession
		if g.SessionID != old.SessionID {
			if g.SessionID == "" {
				return upstream.Invalid("sessionId", "is required")
			}
			if ss, ok = f.sessions[g.SessionID]; !ok {
				return upstream.Invalid("sessionId", "no session %q", g.SessionID)
			}
			if err := upstream.SessionGate(ss, upstream.Structure); err != nil {
				return err
			}
			if err := f.decide(ctx, s, q, c, upstream.GoalsCreate, &upstream.Item{Kind: "goal", Owners: g.OwnerIDs, SessionID: ss.ID}); err != nil {
				return err
			}
		}
		moved := g.ParentID != old.ParentID
		if moved && g.ParentID != "" {
			if _, err := f.visibleGoal(ctx, s, q, c, g.ParentID, "parentId"); err != nil {
				return err
			}
		}
		if err := checkGoal(&g, ss, f); err != nil {
			return err
		}
		if moved && g.ParentID != "" {
			// Only a new parent can make a cycle.
			below, err := isDescendant(ctx, q, c.AccountID, g.ID, g.ParentID)
			if err != nil {
				return err
			}
			if below {
				return upstream.Invalid("parentId", "goal %q is below this goal: that would make a cycle", g.ParentID)
			}
		}
		if g.OwnerID != old.OwnerID || g.SessionID != old.SessionID {
			if err := s.checkGoalLimit(ctx, q, c.AccountID, ss, g.OwnerID, g.ID); err != nil {
				return err
			}
		}
		g.ModifiedByID = c.UserID
		up, doc, err := updateStmt(goals, c.AccountID, &g)
		if err != nil {
			return err
		}
		if err := s.queue(ctx, q, up); err != nil {
			return err
		}
		keepDoc(q, goals.name, g.ID, doc)
		goals.emitFor(q, c.AccountID, &g, updated)
		kids, err := s.syncGoalCopies(ctx, q, c.AccountID, old, g, f)
		if err != nil {
			return err
		}
		if moved || g.SessionID != old.SessionID || g.AttainmentTypeString != old.AttainmentTypeString {
			// The old parent's path lost a child; the goal's own path
			// (through its new parent) has a changed member.
			if err := s.recompute(ctx, q, c.AccountID, old.ParentID, g.ID); err != nil {
				return err
			}
			if g, err = s.getGoal(ctx, q, c.AccountID, g.ID); err != nil {
				return err
			}
			return s.goalView(ctx, q, c, &g)
		}
		// The figures did not change: the answer is the goal as stored,
		// with its owners, tags and key results, as GetGoal would read it.
		if g, err = asStored(g); err != nil {
			return err
		}
		g.Assignee, g.Assignees = ownersOf(f.owners, g.OwnerID, g.OwnerIDs)
		g.Tags = nonNil(f.tags)
		g.Metrics = make([]upstream.Metric, 0, len(kids))
		for _, m := range kids {
			m.Assignee, m.Assignees = ownersOf(f.owners, m.OwnerID, m.OwnerIDs)
			g.Metrics = append(g.Metrics, m)
		}
		return s.goalView(ctx, q, c, &g)
	})
	if err != nil {
		return upstream.Goal{}, err
	}
	return g, nil
}

// syncGoalCopies updates what the key results and tasks of g (loaded in f)
// copy from it, and returns its key results as stored, in id order.
func (s *Store) syncGoalCopies(ctx context.Context, q querier, account string, old, g upstream.Goal, f *itemFacts) ([]upstream.Metric, error) {
	var ms []upstream.Metric
	for _, m := range f.metrics {
		if m.GoalID == g.ID {
			ms = append(ms, m)
		}
	}
	slices.SortFunc(ms, func(a, b upstream.Metric) int { return strings.Compare(a.ID, b.ID) })
	if old.Name == g.Name && old.Description == g.Description && old.OwnerID == g.OwnerID &&
		slices.Equal(old.OwnerIDs, g.OwnerIDs) && old.ClosedStatus == g.ClosedStatus && old.SessionID == g.SessionID {
		return ms, nil
	}
	var writes []stmt
	for i := range ms {
		copyGoal(&ms[i], g)
		up, doc, err := updateStmt(metrics, account, &ms[i])
		if err != nil {
			return nil, err
		}
		writes = append(writes, up)
		keepDoc(q, metrics.name, ms[i].ID, doc)
		metrics.emitFor(q, account, &ms[i], updated)
		if ms[i], err = asStored(ms[i]); err != nil {
			return nil, err
		}
	}
	for _, t := range f.tasks {
		t.SessionID = g.SessionID
		if t.ParentID == g.ID {
			t.ParentName = g.Name
		}
		up, _, err := updateStmt(tasks, account, &t)
		if err != nil {
			return nil, err
		}
		writes = append(writes, up)
		tasks.emitFor(q, account, &t, updated)
	}
	return ms, s.queue(ctx, q, writes...)
}

// copyGoal sets the fields a key result copies from its goal.
func copyGoal(m *upstream.Metric, g upstream.Goal) {
	m.GoalID, m.GoalName, m.GoalDescription = g.ID, g.Name, g.Description
	m.GoalOwnerID, m.GoalOwnerIDs, m.GoalClosedStatus = g.OwnerID, slices.Clone(g.OwnerIDs), g.ClosedStatus
	m.SessionID = g.SessionID
}

// DeleteGoal deletes a goal with its key results, their check-ins and all
// their tasks; child goals become roots.
func (s *Store) DeleteGoal(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		g, err := goals.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.GoalsDelete, upstream.GoalItem(g)); err != nil {
			return err
		}
		ss, err := sessions.get(ctx, q, c.AccountID, g.SessionID)
		if err != nil {
			return err
		}
		if err := upstream.SessionGate(ss, upstream.Structure); err != nil {
			return err
		}
		const metricIDs = "SELECT id FROM metrics WHERE account_id = ? AND goal_id = ?"
		if err := tasks.deleteWhere(ctx, q, c.AccountID, "parent_id = ? OR parent_id IN ("+metricIDs+")", id, c.AccountID, id); err != nil {
			return err
		}
		if err := checkins.deleteWhere(ctx, q, c.AccountID, "goal_id = ?", id); err != nil {
			return err
		}
		if err := comments.deleteWhere(ctx, q, c.AccountID, "target_id IN ("+metricIDs+")", c.AccountID, id); err != nil {
			return err
		}
		if err := metrics.deleteWhere(ctx, q, c.AccountID, "goal_id = ?", id); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, "DELETE FROM item_tags WHERE account_id = ? AND item_id = ?", c.AccountID, id); err != nil {
			return err
		}
		children, err := goals.in(ctx, q, c.AccountID, "parent_id", []string{id})
		if err != nil {
			return err
		}
		for _, ch := range children {
			ch.ParentID, ch.ParentType, ch.ParentGoalSessionID = "", "", ""
			if err := goals.update(ctx, q, c.AccountID, &ch); err != nil {
				return err
			}
		}
		if err := goals.deleteWhere(ctx, q, c.AccountID, "id = ?", id); err != nil {
			return err
		}
		return s.recompute(ctx, q, c.AccountID, g.ParentID)
	})
}

// GoalsMet returns the goals of a session over 99% attainment, optionally
// only those carrying any of tags (names or titles).
func (s *Store) GoalsMet(ctx context.Context, sessionID string, tags []string) ([]upstream.Goal, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	q := s.read()
	ss, err := sessions.get(ctx, q, c.AccountID, sessionID)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(ctx, q, c, upstream.SessionsRead, upstream.SessionItem(ss)); err != nil {
		return nil, err
	}
	sc, err := s.scopeFor(ctx, q, c)
	if err != nil {
		return nil, err
	}
	if err := sc.rule.Sub.Decide(upstream.GoalsRead, nil, nil); err != nil {
		return nil, err
	}
	vis, visArgs := sc.goalVisible("", c.AccountID)
	cond := "session_id = ? AND " + dialectOf(q).num("doc", "attainment") + " > 0.99 AND " + vis
	args := append([]any{sessionID}, visArgs...)
	var names []string
	for _, t := range tags {
		if n := upstream.TagName(t); n != "" {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		cond += ` AND id IN (SELECT it.item_id FROM item_tags it JOIN tags t ON t.id = it.tag_id AND t.account_id = it.account_id
			WHERE it.account_id = ? AND t.name IN (SELECT value FROM json_each(?)))`
		args = append(args, c.AccountID, idsParam(names))
	}
	gs, err := goals.where(ctx, q, c.AccountID, cond, args...)
	if err != nil {
		return nil, err
	}
	if err := s.enrichGoals(ctx, q, c.AccountID, gs, nil, false); err != nil {
		return nil, err
	}
	if err := s.redactGoals(ctx, q, c, gs, nil); err != nil {
		return nil, err
	}
	return gs, nil
}
