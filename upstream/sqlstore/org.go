package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The organisation: users (beyond auth.go), teams (beyond teams.go),
// accounts, employees, roles, role mappings and grants.

var (
	roles = table[upstream.Role]{name: "roles", kind: "role", reg: upstream.RoleFields,
		cols: []string{"name"},
		keys: func(r *upstream.Role) []any { return []any{r.Name} },
		id:   func(r *upstream.Role) string { return r.ID }}
	roleMappings = table[upstream.RoleMapping]{name: "role_mappings", kind: "role mapping", reg: nil,
		cols: []string{"role_id", "team_id"},
		keys: func(m *upstream.RoleMapping) []any { return []any{m.RoleID, m.TeamID} },
		id:   func(m *upstream.RoleMapping) string { return m.ID }}
	grants = table[upstream.Permission]{name: "permissions", kind: "permission", reg: upstream.PermissionFields,
		cols: []string{"action"},
		keys: func(p *upstream.Permission) []any { return []any{p.Action} },
		id:   func(p *upstream.Permission) string { return p.ID }}
	// employees reads the users table through the employee registry.
	employees = table[upstream.User]{name: "users", kind: "employee", reg: upstream.EmployeeFields,
		cols: []string{"email"},
		keys: func(u *upstream.User) []any { return []any{u.Email} },
		id:   func(u *upstream.User) string { return u.ID }}
)

// userRoles resolves the roles a new or changed user holds: role ids
// (built-in or account roles), or a built-in role name, or member.
func (s *Store) userRoles(ctx context.Context, q querier, account, name string, ids []string) ([]upstream.UserRole, error) {
	if len(ids) == 0 {
		if name == "" {
			name = upstream.RoleMember
		}
		b, ok := upstream.BuiltinRoleByName(name)
		if !ok {
			return nil, upstream.Invalid("role", "must be admin, member or viewer")
		}
		return []upstream.UserRole{{AccountID: account, ID: b.ID, Name: b.Name, Description: b.Description}}, nil
	}
	out := []upstream.UserRole{}
	for _, id := range dedupe(ids) {
		if b, ok := upstream.BuiltinRoleByID(id); ok {
			out = append(out, upstream.UserRole{AccountID: account, ID: b.ID, Name: b.Name, Description: b.Description})
			continue
		}
		r, err := roles.get(ctx, q, account, id)
		if err != nil {
			return nil, upstream.Invalid("roleIds", "no role %q", id)
		}
		out = append(out, upstream.UserRole{AccountID: account, ID: r.ID, Name: r.Name, Description: r.Description})
	}
	return out, nil
}

// UpdateUser changes a user. Users change their own profile; roles,
// activation and other users need users:manage. An account keeps at least
// one active admin.
func (s *Store) UpdateUser(ctx context.Context, id string, in upstream.UserPatch) (upstream.User, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.User{}, err
	}
	var u upstream.User
	err = s.tx(ctx, func(q querier) error {
		if u, err = users.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		if !upstream.SelfPatch(c.UserID, id, in) {
			if err := s.authorize(ctx, q, c, upstream.UsersManage, nil); err != nil {
				return err
			}
		}
		set(&u.FirstName, in.FirstName, strings.TrimSpace)
		set(&u.LastName, in.LastName, strings.TrimSpace)
		set(&u.Language, in.Language, strings.TrimSpace)
		set(&u.Picture, in.Picture, nil)
		u.Name = strings.TrimSpace(u.FirstName + " " + u.LastName)
		if in.IsActive != nil {
			u.IsActive = *in.IsActive
			u.PictureInfo.IsActive = *in.IsActive
		}
		if in.RoleIDs != nil {
			if len(*in.RoleIDs) == 0 {
				return upstream.Invalid("roleIds", "a user holds at least one role")
			}
			if u.Roles, err = s.userRoles(ctx, q, c.AccountID, "", *in.RoleIDs); err != nil {
				return err
			}
		}
		if err := users.update(ctx, q, c.AccountID, &u); err != nil {
			return err
		}
		return s.keepAnAdmin(ctx, q, c.AccountID)
	})
	return u, err
}

// keepAnAdmin refuses a change that leaves the account without an active admin.
func (s *Store) keepAnAdmin(ctx context.Context, q querier, account string) error {
	admin, _ := upstream.BuiltinRoleByName(upstream.RoleAdmin)
	var n int
	d := dialectOf(q)
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE account_id = ? AND `+d.isTrue("doc", "isActive")+`
		AND EXISTS (SELECT 1 FROM `+d.eachObject("users.doc", "r", "roles")+` WHERE `+d.text("r.value", "id")+` IN (?, 'role-admin'))`,
		account, admin.ID).Scan(&n)
	if err != nil {
		return fmt.Errorf("sqlstore: count admins: %w", err)
	}
	if n == 0 {
		return upstream.Errorf(upstream.CodeConflict, "the account must keep at least one active admin")
	}
	return nil
}

// ListUsersLegacy is the deprecated listing: property:value terms on email
// and name (case-insensitive substrings) and roles (role ids); terms on the
// same property are alternatives, terms on different properties all apply.
func (s *Store) ListUsersLegacy(ctx context.Context, lq upstream.LegacyUserQuery) (upstream.Page[upstream.User], error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Page[upstream.User]{}, err
	}
	q := s.read()
	if err := s.authorize(ctx, q, c, upstream.UsersRead, nil); err != nil {
		return upstream.Page[upstream.User]{}, err
	}
	var and []any
	anyRegex := func(field string, terms []string) {
		var alts []any
		for _, t := range terms {
			alts = append(alts, map[string]any{field: map[string]any{"$regex": regexp.QuoteMeta(t), "$options": "i"}})
		}
		and = append(and, map[string]any{"$or": alts})
	}
	if len(lq.Email) > 0 {
		anyRegex("email", lq.Email)
	}
	if len(lq.Name) > 0 {
		anyRegex("name", lq.Name)
	}
	var filter *query.Expr
	if len(and) > 0 {
		src, _ := json.Marshal(map[string]any{"$and": and})
		if filter, err = query.ParseFilter(upstream.UserFields, string(src)); err != nil {
			return upstream.Page[upstream.User]{}, err
		}
	}
	list := upstream.ListQuery{Filter: filter, Skip: lq.Skip, Limit: lq.Take,
		Sort: []query.SortKey{{Field: "email"}}}
	src, args := "users", []any(nil)
	if len(lq.Roles) > 0 {
		// Roles held directly or through a team.
		d := dialectOf(q)
		src = `(SELECT * FROM users WHERE account_id = ? AND (
			EXISTS (SELECT 1 FROM ` + d.eachObject("users.doc", "r", "roles") + ` WHERE ` + d.text("r.value", "id") + ` IN ` + idList + `)
			OR EXISTS (SELECT 1 FROM ` + d.each("users.doc", "t", "teamIds") + ` JOIN role_mappings m ON m.team_id = t.value
				WHERE m.account_id = ? AND m.role_id IN (SELECT value FROM json_each(?)))))`
		args = []any{c.AccountID, idsParam(lq.Roles), c.AccountID, idsParam(lq.Roles)}
	}
	items, total, err := users.listFrom(ctx, q, src, args, c.AccountID, list)
	if err != nil {
		return upstream.Page[upstream.User]{}, err
	}
	if lq.IncludeShadowedRoles {
		if err := s.addTeamRoles(ctx, q, c.AccountID, items); err != nil {
			return upstream.Page[upstream.User]{}, err
		}
	}
	return upstream.Page[upstream.User]{Items: items, TotalCount: total}, nil
}

// addTeamRoles adds to users the roles they hold through teams (shadowed
// roles), each with its team: three queries per page.
func (s *Store) addTeamRoles(ctx context.Context, q querier, account string, us []upstream.User) error {
	var teamIDs []string
	for _, u := range us {
		teamIDs = append(teamIDs, u.TeamIDs...)
	}
	ms, err := roleMappings.in(ctx, q, account, "team_id", dedupe(teamIDs))
	if err != nil || len(ms) == 0 {
		return err
	}
	var tids, rids []string
	for _, m := range ms {
		tids, rids = append(tids, m.TeamID), append(rids, m.RoleID)
	}
	ts, err := teams.in(ctx, q, account, "id", dedupe(tids))
	if err != nil {
		return err
	}
	teamByID := map[string]upstream.Team{}
	for _, t := range ts {
		teamByID[t.ID] = t
	}
	roleByID, err := s.rolesByID(ctx, q, account, rids)
	if err != nil {
		return err
	}
	for i := range us {
		for _, m := range ms {
			if !slices.Contains(us[i].TeamIDs, m.TeamID) {
				continue
			}
			r, ok := roleByID[m.RoleID]
			t, tok := teamByID[m.TeamID]
			if !ok || !tok {
				continue
			}
			us[i].Roles = append(us[i].Roles, upstream.UserRole{AccountID: account, ID: r.ID, Name: r.Name, Description: r.Description, Team: &t})
		}
	}
	return nil
}

// rolesByID returns built-in and account roles by id.
func (s *Store) rolesByID(ctx context.Context, q querier, account string, ids []string) (map[string]upstream.Role, error) {
	out := map[string]upstream.Role{}
	var stored []string
	for _, id := range dedupe(ids) {
		if b, ok := upstream.BuiltinRoleByID(id); ok {
			out[id] = builtinRole(account, b)
		} else {
			stored = append(stored, id)
		}
	}
	rs, err := roles.in(ctx, q, account, "id", stored)
	for _, r := range rs {
		out[r.ID] = r
	}
	return out, err
}

func builtinRole(account string, b upstream.BuiltinRole) upstream.Role {
	return upstream.Role{ID: b.ID, AccountID: account, Name: b.Name, Description: b.Description, BuiltIn: true}
}

// Teams.

// UpdateTeam changes a team; a new members list replaces the old one (and
// the users' teamIds follow).
func (s *Store) UpdateTeam(ctx context.Context, id string, in upstream.TeamPatch) (upstream.Team, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Team{}, err
	}
	var t upstream.Team
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.TeamsManage, nil); err != nil {
			return err
		}
		if t, err = teams.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		set(&t.Name, in.Name, strings.TrimSpace)
		set(&t.Description, in.Description, nil)
		set(&t.Color, in.Color, nil)
		set(&t.Avatar, in.Avatar, nil)
		if t.Name == "" {
			return upstream.Invalid("name", "must not be empty")
		}
		if in.ParentID != nil && *in.ParentID != t.ParentID {
			if err := s.checkTeamParent(ctx, q, c.AccountID, id, *in.ParentID); err != nil {
				return err
			}
			t.ParentID = *in.ParentID
		}
		members := t.Members
		if in.Members != nil {
			members = dedupe(*in.Members)
		}
		if in.Manager != nil {
			t.Manager = *in.Manager
		}
		if t.Manager != "" && !slices.Contains(members, t.Manager) {
			members = append(members, t.Manager)
		}
		if err := s.setMembers(ctx, q, c.AccountID, &t, members); err != nil {
			return err
		}
		t.ModifiedByID = c.UserID
		return teams.update(ctx, q, c.AccountID, &t)
	})
	return t, err
}

// checkTeamParent refuses an unknown parent and cycles.
func (s *Store) checkTeamParent(ctx context.Context, q querier, account, id, parent string) error {
	for p, depth := parent, 0; p != ""; depth++ {
		if p == id || depth > 100 {
			return upstream.Invalid("parentId", "would make a cycle")
		}
		t, err := teams.get(ctx, q, account, p)
		if err != nil {
			return upstream.Invalid("parentId", "no team %q", p)
		}
		p = t.ParentID
	}
	return nil
}

// setMembers makes members the team's members, updating users' teamIds.
func (s *Store) setMembers(ctx context.Context, q querier, account string, t *upstream.Team, members []string) error {
	members = dedupe(members)
	found, err := users.in(ctx, q, account, "id", members)
	if err != nil {
		return err
	}
	if len(found) != len(members) {
		return upstream.Invalid("members", "every member and the manager must be a user of the account")
	}
	affected, err := users.in(ctx, q, account, "id", dedupe(append(slices.Clone(t.Members), members...)))
	if err != nil {
		return err
	}
	for _, u := range affected {
		in, had := slices.Contains(members, u.ID), slices.Contains(u.TeamIDs, t.ID)
		switch {
		case in && !had:
			u.TeamIDs = append(u.TeamIDs, t.ID)
		case !in && had:
			u.TeamIDs = slices.DeleteFunc(u.TeamIDs, func(x string) bool { return x == t.ID })
		default:
			continue
		}
		if err := users.update(ctx, q, account, &u); err != nil {
			return err
		}
	}
	t.Members = nonNil(members)
	return nil
}

// DeleteTeam deletes a team: child teams become roots, members lose it,
// its role mappings go.
func (s *Store) DeleteTeam(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.TeamsManage, nil); err != nil {
			return err
		}
		t, err := teams.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if err := s.setMembers(ctx, q, c.AccountID, &t, nil); err != nil {
			return err
		}
		children, err := teams.in(ctx, q, c.AccountID, "parent_id", []string{id})
		if err != nil {
			return err
		}
		for _, ch := range children {
			ch.ParentID = ""
			if err := teams.update(ctx, q, c.AccountID, &ch); err != nil {
				return err
			}
		}
		if err := roleMappings.deleteWhere(ctx, q, c.AccountID, "team_id = ?", id); err != nil {
			return err
		}
		return teams.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}

// AddTeamMember adds a user to a team.
func (s *Store) AddTeamMember(ctx context.Context, teamID, userID string) (upstream.Team, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Team{}, err
	}
	var t upstream.Team
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.TeamsManage, nil); err != nil {
			return err
		}
		if t, err = teams.get(ctx, q, c.AccountID, teamID); err != nil {
			return err
		}
		if _, err := users.get(ctx, q, c.AccountID, userID); err != nil {
			return err
		}
		if err := s.setMembers(ctx, q, c.AccountID, &t, append(slices.Clone(t.Members), userID)); err != nil {
			return err
		}
		return teams.update(ctx, q, c.AccountID, &t)
	})
	return t, err
}

// RemoveTeamMember takes a user out of a team (and from its manager seat).
func (s *Store) RemoveTeamMember(ctx context.Context, teamID, userID string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.TeamsManage, nil); err != nil {
			return err
		}
		t, err := teams.get(ctx, q, c.AccountID, teamID)
		if err != nil {
			return err
		}
		if !slices.Contains(t.Members, userID) {
			return upstream.NotFound("team member", userID)
		}
		if t.Manager == userID {
			t.Manager = ""
		}
		rest := slices.DeleteFunc(slices.Clone(t.Members), func(x string) bool { return x == userID })
		if err := s.setMembers(ctx, q, c.AccountID, &t, rest); err != nil {
			return err
		}
		return teams.update(ctx, q, c.AccountID, &t)
	})
}

// Accounts.

// ownAccount loads the caller's account; another id is not found.
func (s *Store) ownAccount(ctx context.Context, q querier, c upstream.Caller, id string) (upstream.Account, error) {
	if id != c.AccountID {
		return upstream.Account{}, upstream.NotFound("account", id)
	}
	return s.account(ctx, q, id)
}

func (s *Store) saveAccount(ctx context.Context, q querier, a upstream.Account) error {
	doc, err := json.Marshal(a)
	if err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, "UPDATE accounts SET doc = ? WHERE id = ?", string(doc), a.ID); err != nil {
		return fmt.Errorf("sqlstore: update account: %w", err)
	}
	return nil
}

// GetAccount returns the caller's account.
func (s *Store) GetAccount(ctx context.Context, id string) (upstream.Account, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Account{}, err
	}
	q := s.read()
	a, err := s.ownAccount(ctx, q, c, id)
	if err != nil {
		return upstream.Account{}, err
	}
	return a, s.authorize(ctx, q, c, upstream.AccountRead, nil)
}

var domainRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// UpdateAccount changes the caller's account name, domain, language and settings.
func (s *Store) UpdateAccount(ctx context.Context, id string, in upstream.AccountPatch) (upstream.Account, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Account{}, err
	}
	var a upstream.Account
	err = s.tx(ctx, func(q querier) error {
		if a, err = s.ownAccount(ctx, q, c, id); err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.AccountManage, nil); err != nil {
			return err
		}
		set(&a.Name, in.AccountName, strings.TrimSpace)
		set(&a.Language, in.Language, strings.TrimSpace)
		set(&a.Settings, in.Settings, nil)
		if a.Name == "" {
			return upstream.Invalid("accountName", "must not be empty")
		}
		if in.Domain != nil && *in.Domain != a.Domain {
			d := strings.ToLower(strings.TrimSpace(*in.Domain))
			if !domainRE.MatchString(d) {
				return upstream.Invalid("domain", "%q is not a domain label (a-z, 0-9, -)", *in.Domain)
			}
			free, err := s.domainFree(ctx, q, a.ID, d)
			if err != nil {
				return err
			}
			if !free {
				return upstream.Errorf(upstream.CodeConflict, "the domain %q is taken", d)
			}
			a.Domain = d
		}
		return s.saveAccount(ctx, q, a)
	})
	return a, err
}

func (s *Store) domainFree(ctx context.Context, q querier, except, domain string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM accounts WHERE id <> ? AND "+dialectOf(q).text("doc", "domain")+" = ?", except, domain).Scan(&n)
	return n == 0, err
}

// CheckAccountDomain says whether a name and domain are free for the caller's account.
func (s *Store) CheckAccountDomain(ctx context.Context, in upstream.DomainCheck) (upstream.DomainAvailability, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.DomainAvailability{}, err
	}
	q := s.read()
	if err := s.authorize(ctx, q, c, upstream.AccountManage, nil); err != nil {
		return upstream.DomainAvailability{}, err
	}
	var out upstream.DomainAvailability
	if name := strings.TrimSpace(in.AccountName); name != "" {
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM accounts WHERE id <> ? AND lower("+dialectOf(q).text("doc", "name")+") = lower(?)", c.AccountID, name).Scan(&n); err != nil {
			return out, fmt.Errorf("sqlstore: check name: %w", err)
		}
		out.AccountNameAvailable = n == 0
	}
	if d := strings.ToLower(strings.TrimSpace(in.Domain)); d != "" {
		if !domainRE.MatchString(d) {
			return out, upstream.Invalid("domain", "%q is not a domain label (a-z, 0-9, -)", in.Domain)
		}
		if out.DomainAvailable, err = s.domainFree(ctx, q, c.AccountID, d); err != nil {
			return out, err
		}
	}
	return out, nil
}

var colorRE = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// SetConfidenceSettings replaces the account's confidence settings.
func (s *Store) SetConfidenceSettings(ctx context.Context, id string, in upstream.ConfidenceSettings) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	for i, m := range in.ConfidenceMapping {
		if strings.TrimSpace(m.Name) == "" {
			return upstream.Invalid(fmt.Sprintf("confidenceMapping[%d].name", i), "must not be empty")
		}
		if !colorRE.MatchString(m.Color) {
			return upstream.Invalid(fmt.Sprintf("confidenceMapping[%d].color", i), "%q is not a hex colour (#rrggbb)", m.Color)
		}
		if m.Range.From > m.Range.To {
			return upstream.Invalid(fmt.Sprintf("confidenceMapping[%d].range", i), "from must not exceed to")
		}
	}
	if in.ConfidenceMapping == nil {
		in.ConfidenceMapping = []upstream.ConfidenceMapping{}
	}
	return s.tx(ctx, func(q querier) error {
		a, err := s.ownAccount(ctx, q, c, id)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.AccountManage, nil); err != nil {
			return err
		}
		a.ConfidenceSettings = in
		return s.saveAccount(ctx, q, a)
	})
}

// SetNotificationSettings replaces the account's notification settings; the
// response-only fields keep their stored values.
func (s *Store) SetNotificationSettings(ctx context.Context, id string, in upstream.NotificationSettings) (upstream.NotificationSettings, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.NotificationSettings{}, err
	}
	for name, d := range map[string]upstream.Deadline{"checkinDeadline": in.CheckinDeadline, "reportsDeadline": in.ReportsDeadline, "retrospectiveMeeting": in.RetrospectiveMeeting} {
		if d.RemindAt.Hour < 0 || d.RemindAt.Hour > 23 || d.RemindAt.Minute < 0 || d.RemindAt.Minute > 59 {
			return upstream.NotificationSettings{}, upstream.Invalid(name+".remindAt", "must be a time of day (hour 0-23, minute 0-59)")
		}
	}
	err = s.tx(ctx, func(q querier) error {
		a, err := s.ownAccount(ctx, q, c, id)
		if err != nil {
			return err
		}
		if err := s.authorize(ctx, q, c, upstream.AccountManage, nil); err != nil {
			return err
		}
		if old := a.Notifications; old != nil {
			in.CheckinDeadline.LastReminded, in.CheckinDeadline.LastScheduled = old.CheckinDeadline.LastReminded, old.CheckinDeadline.LastScheduled
			in.ReportsDeadline.LastReminded, in.ReportsDeadline.LastScheduled = old.ReportsDeadline.LastReminded, old.ReportsDeadline.LastScheduled
			in.RetrospectiveMeeting.LastReminded, in.RetrospectiveMeeting.LastScheduled = old.RetrospectiveMeeting.LastReminded, old.RetrospectiveMeeting.LastScheduled
		} else {
			in.CheckinDeadline.LastReminded, in.CheckinDeadline.LastScheduled = "", ""
			in.ReportsDeadline.LastReminded, in.ReportsDeadline.LastScheduled = "", ""
			in.RetrospectiveMeeting.LastReminded, in.RetrospectiveMeeting.LastScheduled = "", ""
		}
		a.Notifications = &in
		return s.saveAccount(ctx, q, a)
	})
	return in, err
}

// Employees.

// ListEmployees lists users as employees, with their teams and managed teams.
func (s *Store) ListEmployees(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Employee], error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Page[upstream.Employee]{}, err
	}
	q := s.read()
	if err := s.authorize(ctx, q, c, upstream.UsersRead, nil); err != nil {
		return upstream.Page[upstream.Employee]{}, err
	}
	us, total, err := employees.list(ctx, q, c.AccountID, lq)
	if err != nil {
		return upstream.Page[upstream.Employee]{}, err
	}
	es, err := s.toEmployees(ctx, q, c.AccountID, us, false)
	return upstream.Page[upstream.Employee]{Items: es, TotalCount: total}, err
}

// GetEmployee returns one employee with its teams and managed teams.
func (s *Store) GetEmployee(ctx context.Context, id string) (upstream.Employee, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Employee{}, err
	}
	q := s.read()
	u, err := employees.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.Employee{}, err
	}
	if id != c.UserID {
		if err := s.authorize(ctx, q, c, upstream.UsersRead, nil); err != nil {
			return upstream.Employee{}, err
		}
	}
	es, err := s.toEmployees(ctx, q, c.AccountID, []upstream.User{u}, true)
	if err != nil {
		return upstream.Employee{}, err
	}
	return es[0], nil
}

// toEmployees builds the employee view of a page of users: one query for
// the teams they manage, one for the teams they are in (when withTeams).
func (s *Store) toEmployees(ctx context.Context, q querier, account string, us []upstream.User, withTeams bool) ([]upstream.Employee, error) {
	out := make([]upstream.Employee, len(us))
	if len(us) == 0 {
		return out, nil
	}
	ids := make([]string, len(us))
	var teamIDs []string
	for i, u := range us {
		ids[i] = u.ID
		teamIDs = append(teamIDs, u.TeamIDs...)
	}
	managed, err := teams.where(ctx, q, account, dialectOf(q).text("doc", "manager")+" IN "+idList, idsParam(ids))
	if err != nil {
		return nil, err
	}
	held, err := s.heldBadges(ctx, q, account, ids)
	if err != nil {
		return nil, err
	}
	var member []upstream.Team
	if withTeams {
		if member, err = teams.in(ctx, q, account, "id", dedupe(teamIDs)); err != nil {
			return nil, err
		}
	}
	for i, u := range us {
		e := upstream.Employee{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName, Email: u.Email, Picture: u.Picture,
			DateCreated: u.DateCreated, IsActive: u.IsActive, TeamIDs: nonNil(u.TeamIDs), Roles: nonNil(u.Roles),
			ManagedTeamIDs: []string{}, Badges: []upstream.BadgeSummary{}}
		for _, b := range held[u.ID] {
			e.Badges = append(e.Badges, upstream.BadgeSummary{ID: b.ID, Name: b.Name, Icon: b.Icon, Background: b.Background, Pattern: b.Pattern})
		}
		for _, t := range managed {
			if t.Manager == u.ID {
				e.ManagedTeamIDs = append(e.ManagedTeamIDs, t.ID)
				if withTeams {
					e.ManagedTeams = append(e.ManagedTeams, upstream.EmployeeTeam{Team: t, ProgressSnapshots: []upstream.ProgressSnapshot{}})
				}
			}
		}
		e.IsManager = len(e.ManagedTeamIDs) > 0
		if withTeams {
			e.Teams = []upstream.EmployeeTeam{}
			if e.ManagedTeams == nil {
				e.ManagedTeams = []upstream.EmployeeTeam{}
			}
			for _, t := range member {
				if slices.Contains(u.TeamIDs, t.ID) {
					e.Teams = append(e.Teams, upstream.EmployeeTeam{Team: t, ProgressSnapshots: []upstream.ProgressSnapshot{}})
				}
			}
		}
		out[i] = e
	}
	return out, nil
}

// Roles.

// ListRoles lists the built-in roles and the account roles, with user counts.
func (s *Store) ListRoles(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Role], error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Page[upstream.Role]{}, err
	}
	q := s.read()
	if err := s.authorize(ctx, q, c, upstream.RolesRead, nil); err != nil {
		return upstream.Page[upstream.Role]{}, err
	}
	all, err := s.allRoles(ctx, q, c.AccountID)
	if err != nil {
		return upstream.Page[upstream.Role]{}, err
	}
	// Few roles per account: filter and sort in memory, with the filter
	// language's own semantics.
	docs := make([]map[string]any, 0, len(all))
	for _, r := range all {
		raw, _ := json.Marshal(r)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		if lq.Filter.Match(m) {
			docs = append(docs, m)
		}
	}
	keys := append(slices.Clone(lq.Sort), query.SortKey{Field: "id"})
	less := query.Less(keys)
	sort.SliceStable(docs, func(i, j int) bool { return less(docs[i], docs[j]) })
	page := upstream.Page[upstream.Role]{Items: []upstream.Role{}, TotalCount: len(docs)}
	for i := lq.Skip; i < len(docs) && len(page.Items) < lq.PageLimit(); i++ {
		var r upstream.Role
		raw, _ := json.Marshal(docs[i])
		_ = json.Unmarshal(raw, &r)
		page.Items = append(page.Items, r)
	}
	return page, nil
}

// allRoles returns the built-in roles then the account roles, with user counts.
func (s *Store) allRoles(ctx context.Context, q querier, account string) ([]upstream.Role, error) {
	var out []upstream.Role
	for _, b := range upstream.BuiltinRoles() {
		out = append(out, builtinRole(account, b))
	}
	stored, err := roles.where(ctx, q, account, trueSQL)
	if err != nil {
		return nil, err
	}
	out = append(out, stored...)
	counts := map[string]int{}
	d := dialectOf(q)
	rows, err := q.QueryContext(ctx, `SELECT `+d.text("r.value", "id")+`, `+d.text("r.value", "name")+`, count(*) FROM users, `+d.eachObject("users.doc", "r", "roles")+`
		WHERE users.account_id = ? GROUP BY 1, 2`, account)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: count role users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		var n int
		if err := rows.Scan(&id, &name, &n); err != nil {
			return nil, err
		}
		if b, ok := upstream.BuiltinRoleByName(name); ok && id == "role-"+name {
			id = b.ID
		}
		counts[id] += n
	}
	for i := range out {
		out[i].UserCount = counts[out[i].ID]
	}
	return out, rows.Err()
}

// GetRole returns one role, built-in or of the account.
func (s *Store) GetRole(ctx context.Context, id string) (upstream.Role, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Role{}, err
	}
	q := s.read()
	if err := s.authorize(ctx, q, c, upstream.RolesRead, nil); err != nil {
		return upstream.Role{}, err
	}
	all, err := s.allRoles(ctx, q, c.AccountID)
	if err != nil {
		return upstream.Role{}, err
	}
	for _, r := range all {
		if r.ID == id {
			return r, nil
		}
	}
	return upstream.Role{}, upstream.NotFound("role", id)
}

func checkRoleName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", upstream.Invalid("name", "must not be empty")
	}
	if len(name) > 200 {
		return "", upstream.Invalid("name", "must be at most 200 characters")
	}
	if _, ok := upstream.BuiltinRoleByName(strings.ToLower(name)); ok {
		return "", upstream.Errorf(upstream.CodeConflict, "%q is a built-in role", name)
	}
	return name, nil
}

// CreateRole creates an account role; it holds what is granted to it.
func (s *Store) CreateRole(ctx context.Context, in upstream.RoleInput) (upstream.Role, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Role{}, err
	}
	name, err := checkRoleName(in.Name)
	if err != nil {
		return upstream.Role{}, err
	}
	r := upstream.Role{ID: s.ids.New(), AccountID: c.AccountID, Name: name, Description: in.Description}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.RolesManage, nil); err != nil {
			return err
		}
		if err := s.roleNameFree(ctx, q, c.AccountID, name, ""); err != nil {
			return err
		}
		return roles.insert(ctx, q, c.AccountID, &r)
	})
	return r, err
}

func (s *Store) roleNameFree(ctx context.Context, q querier, account, name, except string) error {
	var n int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM roles WHERE account_id = ? AND name = ? AND id <> ?", account, name, except).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return upstream.Errorf(upstream.CodeConflict, "a role named %q exists", name)
	}
	return nil
}

// UpdateRole changes an account role; users holding it see the new name.
func (s *Store) UpdateRole(ctx context.Context, id string, in upstream.RolePatch) (upstream.Role, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Role{}, err
	}
	var r upstream.Role
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.RolesManage, nil); err != nil {
			return err
		}
		if _, ok := upstream.BuiltinRoleByID(id); ok {
			return upstream.Errorf(upstream.CodeForbidden, "built-in roles cannot be changed")
		}
		if r, err = roles.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		if in.Name != nil {
			if r.Name, err = checkRoleName(*in.Name); err != nil {
				return err
			}
			if err := s.roleNameFree(ctx, q, c.AccountID, r.Name, id); err != nil {
				return err
			}
		}
		set(&r.Description, in.Description, nil)
		if err := roles.update(ctx, q, c.AccountID, &r); err != nil {
			return err
		}
		return s.eachRoleHolder(ctx, q, c.AccountID, id, func(u *upstream.User) {
			for i := range u.Roles {
				if u.Roles[i].ID == id {
					u.Roles[i].Name, u.Roles[i].Description = r.Name, r.Description
				}
			}
		})
	})
	return r, err
}

// eachRoleHolder applies fn to every user holding role id directly and saves it.
func (s *Store) eachRoleHolder(ctx context.Context, q querier, account, id string, fn func(*upstream.User)) error {
	d := dialectOf(q)
	us, err := users.where(ctx, q, account, "EXISTS (SELECT 1 FROM "+d.eachObject("users.doc", "r", "roles")+" WHERE "+d.text("r.value", "id")+" = ?)", id)
	if err != nil {
		return err
	}
	for _, u := range us {
		fn(&u)
		if err := users.update(ctx, q, account, &u); err != nil {
			return err
		}
	}
	return nil
}

// DeleteRole deletes an account role with its mappings and grants; its
// holders keep their other roles (or become members).
func (s *Store) DeleteRole(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.RolesManage, nil); err != nil {
			return err
		}
		if _, ok := upstream.BuiltinRoleByID(id); ok {
			return upstream.Errorf(upstream.CodeForbidden, "built-in roles cannot be deleted")
		}
		if _, err := roles.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		member, _ := upstream.BuiltinRoleByName(upstream.RoleMember)
		if err := s.eachRoleHolder(ctx, q, c.AccountID, id, func(u *upstream.User) {
			u.Roles = slices.DeleteFunc(u.Roles, func(r upstream.UserRole) bool { return r.ID == id })
			if len(u.Roles) == 0 {
				u.Roles = []upstream.UserRole{{AccountID: c.AccountID, ID: member.ID, Name: member.Name, Description: member.Description}}
			}
		}); err != nil {
			return err
		}
		if err := s.dropPrincipal(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		if err := roleMappings.deleteWhere(ctx, q, c.AccountID, "role_id = ?", id); err != nil {
			return err
		}
		return roles.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}

// ListRoleMappings lists every role mapping of the account as roles with
// their team and mapping id.
func (s *Store) ListRoleMappings(ctx context.Context) ([]upstream.Role, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	q := s.read()
	if err := s.authorize(ctx, q, c, upstream.RolesRead, nil); err != nil {
		return nil, err
	}
	ms, err := roleMappings.where(ctx, q, c.AccountID, trueSQL)
	if err != nil {
		return nil, err
	}
	var rids []string
	for _, m := range ms {
		rids = append(rids, m.RoleID)
	}
	byID, err := s.rolesByID(ctx, q, c.AccountID, rids)
	if err != nil {
		return nil, err
	}
	out := []upstream.Role{}
	for _, m := range ms {
		r := byID[m.RoleID]
		r.TeamID, r.MappingID = m.TeamID, m.ID
		out = append(out, r)
	}
	return out, nil
}

// CreateRoleMapping maps a role to a team: its members hold the role.
func (s *Store) CreateRoleMapping(ctx context.Context, in upstream.RoleMappingInput) (upstream.Role, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Role{}, err
	}
	var r upstream.Role
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.RolesManage, nil); err != nil {
			return err
		}
		byID, err := s.rolesByID(ctx, q, c.AccountID, []string{in.RoleID})
		if err != nil {
			return err
		}
		var ok bool
		if r, ok = byID[in.RoleID]; !ok {
			return upstream.Invalid("roleId", "no role %q", in.RoleID)
		}
		if _, err := teams.get(ctx, q, c.AccountID, in.TeamID); err != nil {
			return upstream.Invalid("teamId", "no team %q", in.TeamID)
		}
		var n int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM role_mappings WHERE account_id = ? AND role_id = ? AND team_id = ?", c.AccountID, in.RoleID, in.TeamID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return upstream.Errorf(upstream.CodeConflict, "role %q is already mapped to team %q", in.RoleID, in.TeamID)
		}
		m := upstream.RoleMapping{ID: s.ids.New(), AccountID: c.AccountID, RoleID: in.RoleID, TeamID: in.TeamID}
		r.TeamID, r.MappingID = m.TeamID, m.ID
		return roleMappings.insert(ctx, q, c.AccountID, &m)
	})
	return r, err
}

// DeleteRoleMapping deletes a role mapping by its id.
func (s *Store) DeleteRoleMapping(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.RolesManage, nil); err != nil {
			return err
		}
		if _, err := roleMappings.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		return roleMappings.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}
