package sqlstore

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// CreateSession creates a planning session.
func (s *Store) CreateSession(ctx context.Context, in upstream.SessionInput) (upstream.Session, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Session{}, err
	}
	ss := upstream.Session{
		ID: s.ids.New(), AccountID: c.AccountID, Title: strings.TrimSpace(in.Title), Status: in.Status,
		Color: in.Color, Demo: in.Demo, ParentID: in.ParentID, Inherits: true,
		IsSelfApproveAllowed: in.IsSelfApproveAllowed, CadenceTimeZone: in.CadenceTimeZone, CadenceType: in.CadenceType,
		Cadence: in.Cadence, CadenceStart: in.CadenceStart, Workflow: in.Workflow,
		CurrentUserAllowedActions: []string{}, Permissions: []upstream.PermissionEntry{}, Tags: []upstream.Tag{},
	}
	if in.Settings != nil {
		ss.Settings = *in.Settings
	}
	if ss.Status == "" {
		ss.Status = upstream.SessionOpen
	}
	if ss.Start, err = upstream.ParseTime("start", in.Start); err != nil {
		return upstream.Session{}, err
	}
	if ss.End, err = upstream.ParseTime("end", in.End); err != nil {
		return upstream.Session{}, err
	}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.SessionsManage, nil); err != nil {
			return err
		}
		if err := s.setSessionAccess(ctx, q, c.AccountID, &ss, in.Access); err != nil {
			return err
		}
		if err := s.checkSession(ctx, q, c.AccountID, &ss); err != nil {
			return err
		}
		if err := sessions.insert(ctx, q, c.AccountID, &ss); err != nil {
			return err
		}
		return s.sessionView(ctx, q, c, &ss)
	})
	if err != nil {
		return upstream.Session{}, err
	}
	return ss, nil
}

// setSessionAccess gives ss the access a (the platform's access field of a
// session write; nil changes nothing), checked as SetItemAccess checks it:
// its principals must be the account's.
func (s *Store) setSessionAccess(ctx context.Context, q querier, account string, ss *upstream.Session, a *upstream.Access) error {
	if a == nil {
		return nil
	}
	in := *a
	if err := upstream.CheckAccess(in); err != nil {
		return err
	}
	if in.Permissions == nil {
		in.Permissions = []upstream.PermissionEntry{}
	}
	if err := s.checkAccessPrincipals(ctx, q, account, &in); err != nil {
		return err
	}
	ss.Inherits, ss.OwnerPermissions, ss.Permissions = in.Inherits, in.OwnerPermissions, in.Permissions
	return nil
}

// checkSession validates a session about to be written: its own fields
// (upstream.CheckSession), and a parent that exists and makes no cycle.
func (s *Store) checkSession(ctx context.Context, q querier, account string, ss *upstream.Session) error {
	if err := upstream.CheckSession(*ss); err != nil {
		return err
	}
	if ss.ParentID != "" {
		// Walk up to refuse cycles.
		for id, depth := ss.ParentID, 0; id != ""; depth++ {
			p, err := sessions.get(ctx, q, account, id)
			if err != nil {
				return upstream.Invalid("parentId", "no session %q", id)
			}
			if p.ParentID == ss.ID || depth > 100 {
				return upstream.Invalid("parentId", "would make a cycle")
			}
			id = p.ParentID
		}
	}
	return nil
}

// ListSessions lists sessions; demo sessions only when includeDemo.
func (s *Store) ListSessions(ctx context.Context, lq upstream.ListQuery, includeDemo bool) (upstream.Page[upstream.Session], error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Page[upstream.Session]{}, err
	}
	if !includeDemo {
		lq.Filter = query.And(lq.Filter, query.Eq("demo", false))
	}
	q := s.read()
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return upstream.Page[upstream.Session]{}, err
	}
	if err := sub.Decide(upstream.SessionsRead, nil, nil); err != nil {
		return upstream.Page[upstream.Session]{}, err
	}
	if !sub.Admin {
		// Sessions whose own access denies the caller sessions:read are left
		// out before paging, so totalCount counts only what the caller sees.
		// An account has few sessions: decide each in memory, on the
		// sessions of the caller's scope (read once per request).
		sc, err := s.scopeFor(ctx, q, c)
		if err != nil {
			return upstream.Page[upstream.Session]{}, err
		}
		var hidden []any
		for _, id := range slices.Sorted(maps.Keys(sc.rule.Sessions)) {
			if sub.Decide(upstream.SessionsRead, upstream.SessionItem(*sc.rule.Sessions[id]), nil) != nil {
				hidden = append(hidden, id)
			}
		}
		if len(hidden) > 0 {
			notIn, err := query.ParseFilter(upstream.SessionFields, notInFilter(hidden))
			if err != nil {
				return upstream.Page[upstream.Session]{}, err
			}
			lq.Filter = query.And(lq.Filter, notIn)
		}
	}
	items, total, err := sessions.list(ctx, q, c.AccountID, lq)
	if err != nil {
		return upstream.Page[upstream.Session]{}, err
	}
	if err := s.sessionActionsFor(ctx, q, c, items); err != nil {
		return upstream.Page[upstream.Session]{}, err
	}
	return upstream.Page[upstream.Session]{Items: items, TotalCount: total}, nil
}

// GetSession returns one session.
func (s *Store) GetSession(ctx context.Context, id string) (upstream.Session, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Session{}, err
	}
	q := s.read()
	ss, err := sessions.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.Session{}, err
	}
	if err := s.authorize(ctx, q, c, upstream.SessionsRead, upstream.SessionItem(ss)); err != nil {
		return upstream.Session{}, err
	}
	out := []upstream.Session{ss}
	if err := s.sessionActionsFor(ctx, q, c, out); err != nil {
		return upstream.Session{}, err
	}
	return out[0], nil
}

// UpdateSession changes a session. A closed session can only be reopened
// (a patch that sets status and nothing else).
func (s *Store) UpdateSession(ctx context.Context, id string, in upstream.SessionPatch) (upstream.Session, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Session{}, err
	}
	var ss upstream.Session
	err = s.tx(ctx, func(q querier) error {
		ss, err = sessions.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.SessionsManage, upstream.SessionItem(ss)); err != nil {
			return err
		}
		if err := upstream.SessionPatchGate(ss, in); err != nil {
			return err
		}
		set(&ss.Title, in.Title, strings.TrimSpace)
		set(&ss.Status, in.Status, nil)
		set(&ss.Color, in.Color, nil)
		set(&ss.ParentID, in.ParentID, nil)
		set(&ss.CadenceTimeZone, in.CadenceTimeZone, nil)
		set(&ss.CadenceType, in.CadenceType, nil)
		if err := s.setSessionAccess(ctx, q, c.AccountID, &ss, in.Access); err != nil {
			return err
		}
		if in.IsSelfApproveAllowed != nil {
			ss.IsSelfApproveAllowed = *in.IsSelfApproveAllowed
		}
		if in.Start != nil {
			if ss.Start, err = upstream.ParseTime("start", *in.Start); err != nil {
				return err
			}
		}
		if in.End != nil {
			if ss.End, err = upstream.ParseTime("end", *in.End); err != nil {
				return err
			}
		}
		if in.Cadence != nil {
			ss.Cadence = in.Cadence
		}
		if in.CadenceStart != nil {
			ss.CadenceStart = in.CadenceStart
		}
		if in.Settings != nil {
			ss.Settings = *in.Settings
		}
		if in.Workflow != nil {
			ss.Workflow = in.Workflow
		}
		if err := s.checkSession(ctx, q, c.AccountID, &ss); err != nil {
			return err
		}
		if err := sessions.update(ctx, q, c.AccountID, &ss); err != nil {
			return err
		}
		return s.sessionView(ctx, q, c, &ss)
	})
	if err != nil {
		return upstream.Session{}, err
	}
	return ss, nil
}

// DeleteSession deletes a session that holds no goals and no child sessions.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		ss, err := sessions.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.SessionsManage, upstream.SessionItem(ss)); err != nil {
			return err
		}
		var n int
		if err := q.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM goals WHERE account_id = ? AND session_id = ?) + (SELECT count(*) FROM sessions WHERE account_id = ? AND parent_id = ?)",
			c.AccountID, id, c.AccountID, id).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return upstream.Errorf(upstream.CodeConflict, "session %q still holds goals or child sessions", id)
		}
		return sessions.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}

// set assigns *src (transformed by f, when given) to *dst when src is set.
func set(dst *string, src *string, f func(string) string) {
	if src == nil {
		return
	}
	if f != nil {
		*dst = f(*src)
		return
	}
	*dst = *src
}

// notInFilter is the filter "id not in ids".
func notInFilter(ids []any) string {
	b, _ := json.Marshal(map[string]any{"id": map[string]any{"$nin": ids}})
	return string(b)
}
