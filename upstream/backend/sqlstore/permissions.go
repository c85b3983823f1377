package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/okrgate/okrgate/upstream"
)

// ListActions returns the action catalogue.
func (s *Store) ListActions(ctx context.Context) ([]upstream.ActionDescriptor, error) {
	if _, err := upstream.MustCaller(ctx); err != nil {
		return nil, err
	}
	return upstream.Actions(), nil
}

// AllowedActions returns what the caller may do on one item. An item the
// caller may not see is not found.
func (s *Store) AllowedActions(ctx context.Context, targetType, targetID string) (upstream.AllowedActions, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.AllowedActions{}, err
	}
	q := s.read()
	sub, err := s.loadSubject(ctx, q, c)
	if err != nil {
		return upstream.AllowedActions{}, err
	}
	var it *upstream.Item
	var sess *upstream.Session
	var candidates []upstream.Action
	loadSession := func(id string) {
		if ss, err := sessions.get(ctx, q, c.AccountID, id); err == nil {
			sess = &ss
		}
	}
	switch targetType {
	case "goal":
		g, err := goals.get(ctx, q, c.AccountID, targetID)
		if err != nil {
			return upstream.AllowedActions{}, err
		}
		it, candidates = upstream.GoalItem(g), upstream.GoalActions()
		loadSession(g.SessionID)
	case "metric":
		m, err := metrics.get(ctx, q, c.AccountID, targetID)
		if err != nil {
			return upstream.AllowedActions{}, err
		}
		g, err := goals.get(ctx, q, c.AccountID, m.GoalID)
		if err != nil {
			return upstream.AllowedActions{}, err
		}
		it, candidates = upstream.MetricItem(m, g), upstream.MetricActions()
		loadSession(g.SessionID)
	case "session":
		ss, err := sessions.get(ctx, q, c.AccountID, targetID)
		if err != nil {
			return upstream.AllowedActions{}, err
		}
		it, candidates = upstream.SessionItem(ss), upstream.SessionActions()
	case "insightBoard", "dashboard":
		a, owners, err := s.dashboardAccess(ctx, q, c.AccountID, targetID)
		if err != nil {
			return upstream.AllowedActions{}, err
		}
		it, candidates = upstream.DashboardItem(targetID, owners, a), upstream.DashboardActions()
	default:
		return upstream.AllowedActions{}, upstream.Invalid("targetType", "must be metric, goal, session or insightBoard")
	}
	if !sub.Sees(it, sess) {
		return upstream.AllowedActions{}, upstream.NotFound(targetType, targetID)
	}
	return upstream.AllowedActions{CurrentUserActions: sub.AllowedOn(it, sess, candidates)}, nil
}

// dashboardAccess reads a dashboard's access and owners from the content
// part's table, if that part is installed.
func (s *Store) dashboardAccess(ctx context.Context, q querier, account, id string) (*upstream.Access, []string, error) {
	if !upstream.ValidID(id) {
		return nil, nil, upstream.NotFound("dashboard", id)
	}
	var n int
	if err := q.QueryRowContext(ctx, dialectOf(q).tableExists(), "dashboards").Scan(&n); err != nil || n == 0 {
		return nil, nil, upstream.NotFound("dashboard", id)
	}
	var raw []byte
	if err := q.QueryRowContext(ctx, "SELECT doc FROM dashboards WHERE id = ? AND account_id = ?", id, account).Scan(&raw); err != nil {
		if isNoRows(err) {
			return nil, nil, upstream.NotFound("dashboard", id)
		}
		return nil, nil, err
	}
	var d struct {
		Access      *upstream.Access `json:"access"`
		OwnerID     string           `json:"ownerId"`
		CreatedByID string           `json:"createdById"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, nil, err
	}
	owners := []string{}
	for _, o := range []string{d.OwnerID, d.CreatedByID} {
		if o != "" {
			owners = append(owners, o)
		}
	}
	return d.Access, owners, nil
}

// DefaultAccess is the access a new session or dashboard gets.
func (s *Store) DefaultAccess(ctx context.Context, itemType string) (upstream.Access, error) {
	if _, err := upstream.MustCaller(ctx); err != nil {
		return upstream.Access{}, err
	}
	if itemType != "session" && itemType != "dashboard" {
		return upstream.Access{}, upstream.NotFound("item type", itemType)
	}
	return upstream.DefaultAccess(itemType), nil
}

// ItemAccess is the access of one session, goal or dashboard; reading it
// needs the right to read the item.
func (s *Store) ItemAccess(ctx context.Context, itemType, itemID string) (upstream.Access, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Access{}, err
	}
	q := s.read()
	var a *upstream.Access
	switch itemType {
	case "session":
		ss, err := sessions.get(ctx, q, c.AccountID, itemID)
		if err != nil {
			return upstream.Access{}, err
		}
		if err := s.authorize(ctx, q, c, upstream.SessionsRead, upstream.SessionItem(ss)); err != nil {
			return upstream.Access{}, err
		}
		a = upstream.SessionAccess(ss)
	case "goal":
		g, err := goals.get(ctx, q, c.AccountID, itemID)
		if err != nil {
			return upstream.Access{}, err
		}
		if err := s.authorize(ctx, q, c, upstream.GoalsRead, upstream.GoalItem(g)); err != nil {
			return upstream.Access{}, err
		}
		a = g.Access
		if a == nil {
			a = &upstream.Access{Inherits: true}
		}
	case "dashboard", "insightBoard":
		acc, owners, err := s.dashboardAccess(ctx, q, c.AccountID, itemID)
		if err != nil {
			return upstream.Access{}, err
		}
		if err := s.authorize(ctx, q, c, upstream.DashboardsRead, upstream.DashboardItem(itemID, owners, acc)); err != nil {
			return upstream.Access{}, err
		}
		a = acc
		if a == nil {
			d := upstream.DefaultAccess("dashboard")
			a = &d
		}
	default:
		return upstream.Access{}, upstream.NotFound("item type", itemType)
	}
	out := *a
	if out.Permissions == nil {
		out.Permissions = []upstream.PermissionEntry{}
	}
	return out, nil
}

// SetItemAccess replaces the access of a session (needs sessions:manage on
// it) or a goal (goals:update on it).
func (s *Store) SetItemAccess(ctx context.Context, itemType, itemID string, in upstream.Access) (upstream.Access, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Access{}, err
	}
	if err := upstream.CheckAccess(in); err != nil {
		return upstream.Access{}, err
	}
	if in.Permissions == nil {
		in.Permissions = []upstream.PermissionEntry{}
	}
	err = s.tx(ctx, func(q querier) error {
		if err := s.checkAccessPrincipals(ctx, q, c.AccountID, &in); err != nil {
			return err
		}
		switch itemType {
		case "session":
			ss, err := sessions.get(ctx, q, c.AccountID, itemID)
			if err != nil {
				return err
			}
			if err := s.authorize(ctx, q, c, upstream.SessionsManage, upstream.SessionItem(ss)); err != nil {
				return err
			}
			ss.Inherits, ss.OwnerPermissions, ss.Permissions = in.Inherits, in.OwnerPermissions, in.Permissions
			return sessions.update(ctx, q, c.AccountID, &ss)
		case "goal":
			g, err := goals.get(ctx, q, c.AccountID, itemID)
			if err != nil {
				return err
			}
			if err := s.authorize(ctx, q, c, upstream.GoalsUpdate, upstream.GoalItem(g)); err != nil {
				return err
			}
			g.Access = &in
			return goals.update(ctx, q, c.AccountID, &g)
		}
		return upstream.NotFound("item type", itemType)
	})
	return in, err
}

// EffectivePermissions are the caller's account-level actions.
func (s *Store) EffectivePermissions(ctx context.Context) (upstream.EffectivePermissions, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.EffectivePermissions{}, err
	}
	sub, err := s.loadSubject(ctx, s.read(), c)
	if err != nil {
		return upstream.EffectivePermissions{}, err
	}
	return upstream.EffectivePermissions{UserID: c.UserID, Roles: nonNil(sub.RoleNames), Actions: sub.ActionList()}, nil
}

// principalKind says whether id names a user or a role of the account.
func (s *Store) principalKind(ctx context.Context, q querier, account, id string) (string, error) {
	if _, ok := upstream.BuiltinRoleByID(id); ok {
		return "role", nil
	}
	if _, err := roles.get(ctx, q, account, id); err == nil {
		return "role", nil
	}
	if _, err := users.get(ctx, q, account, id); err == nil {
		return "user", nil
	}
	return "", upstream.NotFound("principal", id)
}

// checkAccessPrincipals verifies that every entry of an item's access names
// a user, role or team of the account (its principalKind, when given, must
// match), so an access list never holds ids from elsewhere.
func (s *Store) checkAccessPrincipals(ctx context.Context, q querier, account string, acc *upstream.Access) error {
	if acc == nil {
		return nil
	}
	for i := range acc.Permissions {
		p := &acc.Permissions[i]
		field := fmt.Sprintf("permissions[%d].principalId", i)
		kind, err := s.principalKind(ctx, q, account, p.PrincipalID)
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			if _, terr := teams.get(ctx, q, account, p.PrincipalID); terr == nil {
				kind, err = "team", nil
			}
		}
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			return upstream.Invalid(field, "no user, role or team %q", p.PrincipalID)
		}
		if err != nil {
			return err
		}
		if p.PrincipalKind != "" && p.PrincipalKind != kind {
			return upstream.Invalid(fmt.Sprintf("permissions[%d].principalKind", i), "%q is a %s", p.PrincipalID, kind)
		}
		p.PrincipalKind = kind
	}
	return nil
}

// GetPrincipalPermissions returns the actions a user or role holds: for a
// role its bundle and grants; for a user everything it holds. Reading
// another principal needs permissions:manage.
func (s *Store) GetPrincipalPermissions(ctx context.Context, id string) (upstream.PrincipalPermissions, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.PrincipalPermissions{}, err
	}
	q := s.read()
	kind, err := s.principalKind(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.PrincipalPermissions{}, err
	}
	if id != c.UserID {
		if err := s.authorize(ctx, q, c, upstream.PermsManage, nil); err != nil {
			return upstream.PrincipalPermissions{}, err
		}
	}
	out := upstream.PrincipalPermissions{PrincipalID: id, PrincipalKind: kind}
	if kind == "user" {
		sub, err := s.loadSubject(ctx, q, upstream.Caller{AccountID: c.AccountID, UserID: id})
		if err != nil {
			return upstream.PrincipalPermissions{}, err
		}
		out.Actions = sub.ActionList()
		return out, nil
	}
	// A role is a subject of its own: its bundle and its grants.
	f := upstream.SubjectFacts{RoleIDs: []string{id}}
	gs, err := s.grantsOf(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.PrincipalPermissions{}, err
	}
	for _, g := range gs {
		f.Grants = append(f.Grants, upstream.Action(g.Action))
	}
	out.Actions = upstream.NewSubject(f).ActionList()
	return out, nil
}

// grantsOf returns the grants naming principal.
func (s *Store) grantsOf(ctx context.Context, q querier, account, principal string) ([]upstream.Permission, error) {
	return grants.where(ctx, q, account, "EXISTS (SELECT 1 FROM "+dialectOf(q).each("permissions.doc", "p", "principals")+" WHERE p.value = ?)", principal)
}

// SetPrincipalPermissions makes the principal's grants exactly in.Actions
// (its role bundle is not changed by grants). A caller who is not an admin
// grants only actions it holds itself (upstream.MayConfer).
func (s *Store) SetPrincipalPermissions(ctx context.Context, id string, in upstream.PrincipalPermissionsInput) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	want := dedupe(in.Actions)
	for _, a := range want {
		if !upstream.KnownAction(a) {
			return upstream.Invalid("actions", "unknown action %q", a)
		}
	}
	return s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.PermsManage, nil); err != nil {
			return err
		}
		kind, err := s.principalKind(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		have, err := s.grantsOf(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		var added []upstream.Action
		for _, a := range want {
			if !slices.ContainsFunc(have, func(g upstream.Permission) bool { return g.Action == a }) {
				added = append(added, upstream.Action(a))
			}
		}
		d, err := s.delegationOf(ctx, q, c)
		if err != nil {
			return err
		}
		if err := s.checkGrant(ctx, q, d, id, kind, added); err != nil {
			return err
		}
		held := map[string]bool{}
		for _, g := range have {
			if slices.Contains(want, g.Action) {
				held[g.Action] = true
				continue
			}
			g.Principals = slices.DeleteFunc(g.Principals, func(p string) bool { return p == id })
			if len(g.Principals) == 0 {
				if err := grants.deleteWhere(ctx, q, c.AccountID, "id = ?", g.ID); err != nil {
					return err
				}
			} else if err := grants.update(ctx, q, c.AccountID, &g); err != nil {
				return err
			}
		}
		sort.Strings(want)
		for _, a := range want {
			if held[a] {
				continue
			}
			g := upstream.Permission{ID: s.ids.New(), AccountID: c.AccountID, Action: a, Principals: []string{id}}
			if err := grants.insert(ctx, q, c.AccountID, &g); err != nil {
				return err
			}
		}
		return nil
	})
}

// dropPrincipal takes a deleted principal out of every grant.
func (s *Store) dropPrincipal(ctx context.Context, q querier, account, id string) error {
	have, err := s.grantsOf(ctx, q, account, id)
	if err != nil {
		return err
	}
	for _, g := range have {
		g.Principals = slices.DeleteFunc(g.Principals, func(p string) bool { return p == id })
		if len(g.Principals) == 0 {
			err = grants.deleteWhere(ctx, q, account, "id = ?", g.ID)
		} else {
			err = grants.update(ctx, q, account, &g)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// GetPermission returns one grant.
func (s *Store) GetPermission(ctx context.Context, id string) (upstream.Permission, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Permission{}, err
	}
	q := s.read()
	p, err := grants.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.Permission{}, err
	}
	return p, s.authorize(ctx, q, c, upstream.PermsManage, nil)
}

// ListPermissions lists the grants of the caller's account; like
// GetPermission it needs permissions:manage.
func (s *Store) ListPermissions(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Permission], error) {
	return listPage(ctx, s, listing[upstream.Permission]{action: upstream.PermsManage, table: grants,
		then: func(_ context.Context, _ querier, _ upstream.Caller, items []upstream.Permission, _ upstream.ListQuery) ([]upstream.Permission, error) {
			return nonNil(items), nil
		}}, lq)
}

// CreatePermission grants an action to principals (users or roles of the
// account); a caller who is not an admin grants only an action it holds
// itself (upstream.MayConfer).
func (s *Store) CreatePermission(ctx context.Context, in upstream.PermissionInput) (upstream.Permission, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Permission{}, err
	}
	if !upstream.KnownAction(in.Action) {
		return upstream.Permission{}, upstream.Invalid("action", "unknown action %q", in.Action)
	}
	ps := dedupe(in.Principals)
	if len(ps) == 0 {
		return upstream.Permission{}, upstream.Invalid("principals", "name at least one user or role")
	}
	p := upstream.Permission{ID: s.ids.New(), AccountID: c.AccountID, Action: in.Action, Principals: ps}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.PermsManage, nil); err != nil {
			return err
		}
		d, err := s.delegationOf(ctx, q, c)
		if err != nil {
			return err
		}
		for _, id := range ps {
			kind, err := s.principalKind(ctx, q, c.AccountID, id)
			if err != nil {
				return upstream.Invalid("principals", "no user or role %q", id)
			}
			if err := s.checkGrant(ctx, q, d, id, kind, []upstream.Action{upstream.Action(in.Action)}); err != nil {
				return err
			}
		}
		return grants.insert(ctx, q, c.AccountID, &p)
	})
	return p, err
}
