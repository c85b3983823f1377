package rest

import (
	"net/http"

	"github.com/okrgate/okrgate/upstream"
)

// orgTable holds the organisation: accounts, users, employees, teams, roles
// and permissions.
func orgTable() []entry {
	const (
		get, post, put, patch, del = http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete
		ok, created, noContent     = http.StatusOK, http.StatusCreated, http.StatusNoContent
	)
	return []entry{
		// Accounts.
		{Route{Method: get, Pattern: "/api/v1/accounts/{id}", Operation: "GetAccount", Account: true, Success: ok}, (*server).getAccount},
		{Route{Method: put, Pattern: "/api/v1/accounts/{id}", Operation: "UpdateAccount", Account: true, Success: ok, Designed: true}, (*server).updateAccount},
		{Route{Method: post, Pattern: "/api/v1/accounts/domain", Operation: "CheckAccountDomain", Account: true, Success: ok}, (*server).checkDomain},
		{Route{Method: put, Pattern: "/api/v1/accounts/{id}/confidence", Operation: "SetConfidenceSettings", Account: true, Success: noContent}, (*server).setConfidence},
		{Route{Method: put, Pattern: "/api/v1/accounts/{id}/notifications", Operation: "SetNotificationSettings", Account: true, Success: ok}, (*server).setNotifications},

		// Users.
		{Route{Method: get, Pattern: "/api/v1/accounts/users", Account: true, Deprecated: true, Successor: "/api/v2/users",
			Params: []string{"filter", "skip", "take", "includeShadowedRoles"}, Success: ok}, (*server).listUsersLegacy},
		{Route{Method: get, Pattern: "/api/v2/users", Operation: "ListUsers", Params: []string{"fields", "sort", "filter", "skip", "limit", "take"}, Success: ok, Designed: true}, (*server).listUsers},
		{Route{Method: get, Pattern: "/api/v2/users/{id}", Operation: "GetUser", Params: viewParams, Success: ok, Designed: true}, (*server).getUser},
		{Route{Method: post, Pattern: "/api/v2/users", Success: created, Designed: true}, (*server).createUser},
		{Route{Method: patch, Pattern: "/api/v2/users/{id}", Operation: "UpdateUser", Success: ok, Designed: true}, (*server).updateUser},
		{Route{Method: post, Pattern: "/api/v2/users/{id}/tokens", Success: created, Designed: true, Secret: true}, (*server).createUserToken},

		// Employees.
		{Route{Method: get, Pattern: "/api/v2/employees", Operation: "ListEmployees", Account: true, Params: []string{"filter", "sort", "fields", "skip", "take"}, Success: ok}, (*server).listEmployees},
		{Route{Method: get, Pattern: "/api/v1/employees/{employeeId}", Account: true, Success: ok}, (*server).getEmployee},

		// Teams.
		{Route{Method: get, Pattern: "/api/v2/teams", Operation: "ListTeams", Params: listParams, Success: ok}, (*server).listTeams},
		{Route{Method: get, Pattern: "/api/v1/teams/{teamId}", Operation: "GetTeam", Account: true, Params: []string{"formatting"}, Success: ok}, (*server).getTeam},
		{Route{Method: post, Pattern: "/api/v1/teams", Operation: "CreateTeam", Success: created, Designed: true}, (*server).createTeam},
		{Route{Method: patch, Pattern: "/api/v1/teams/{teamId}", Operation: "UpdateTeam", Success: ok, Designed: true}, (*server).updateTeam},
		{Route{Method: del, Pattern: "/api/v1/teams/{teamId}", Operation: "DeleteTeam", Success: noContent, Designed: true}, (*server).deleteTeam},
		{Route{Method: put, Pattern: "/api/v1/teams/{teamId}/members/{userId}", Operation: "AddTeamMember", Success: ok, Designed: true}, (*server).addTeamMember},
		{Route{Method: del, Pattern: "/api/v1/teams/{teamId}/members/{userId}", Operation: "RemoveTeamMember", Success: noContent, Designed: true}, (*server).removeTeamMember},

		// Roles.
		{Route{Method: get, Pattern: "/api/v2/roles", Operation: "ListRoles", Account: true, Params: listParams, Success: ok}, (*server).listRoles},
		{Route{Method: get, Pattern: "/api/v1/roles/account/mapping/", Account: true, Success: ok}, (*server).listRoleMappings},
		{Route{Method: get, Pattern: "/api/v1/roles/{id}", Operation: "GetRole", Account: true, Success: ok}, (*server).getRole},
		{Route{Method: post, Pattern: "/api/v1/roles/account", Operation: "CreateRole", Account: true, Success: created}, (*server).createRole},
		{Route{Method: post, Pattern: "/api/v1/roles/account/mapping", Operation: "CreateRoleMapping", Account: true, Success: created}, (*server).createRoleMapping},
		{Route{Method: put, Pattern: "/api/v1/roles/account/{id}", Operation: "UpdateRole", Account: true, Success: ok}, (*server).updateRole},
		{Route{Method: del, Pattern: "/api/v1/roles/account/mapping/{id}", Operation: "DeleteRoleMapping", Account: true, Success: noContent}, (*server).deleteRoleMapping},
		{Route{Method: del, Pattern: "/api/v1/roles/account/{id}", Operation: "DeleteRole", Account: true, Success: noContent}, (*server).deleteRole},

		// Permissions.
		{Route{Method: get, Pattern: "/api/v1/permissions/actions", Account: true, Success: ok}, (*server).listActions},
		{Route{Method: get, Pattern: "/api/v1/permissions/currentUser-allowedActions/{targetId}", Account: true, Params: []string{"targetType"}, Success: ok}, (*server).allowedActions},
		{Route{Method: get, Pattern: "/api/v1/permissions/default-access/{itemType}", Operation: "DefaultAccess", Success: ok}, (*server).defaultAccess},
		{Route{Method: get, Pattern: "/api/v1/permissions/default-access/{itemType}/{itemId}", Operation: "ItemAccess", Account: true, Success: ok}, (*server).itemAccess},
		{Route{Method: put, Pattern: "/api/v1/permissions/default-access/{itemType}/{itemId}", Operation: "SetItemAccess", Account: true, Success: ok, Designed: true}, (*server).setItemAccess},
		{Route{Method: get, Pattern: "/api/v1/permissions/effective", Operation: "EffectivePermissions", Account: true, Success: ok}, (*server).effectivePermissions},
		{Route{Method: get, Pattern: "/api/v1/permissions/principal/{id}", Operation: "GetPrincipalPermissions", Account: true, Success: ok}, (*server).getPrincipalPermissions},
		{Route{Method: put, Pattern: "/api/v1/permissions/principal/{id}", Operation: "SetPrincipalPermissions", Success: noContent}, (*server).setPrincipalPermissions},
		{Route{Method: get, Pattern: "/api/v1/permissions/{id}", Operation: "GetPermission", Account: true, Success: ok}, (*server).getPermission},
		{Route{Method: post, Pattern: "/api/v1/permissions", Operation: "CreatePermission", Account: true, Success: created}, (*server).createPermission},
	}
}

// Accounts.

func (s *server) getAccount(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "id", "account", nil, func(id string) (upstream.Account, error) { return s.api.GetAccount(r.Context(), id) })
}

func (s *server) updateAccount(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "account", func(id string, p upstream.AccountPatch) (upstream.Account, error) {
		return s.api.UpdateAccount(r.Context(), id, p)
	})
}

func (s *server) checkDomain(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, nil, func(in upstream.DomainCheck) (upstream.DomainAvailability, error) {
		return s.api.CheckAccountDomain(r.Context(), in)
	})
}

func (s *server) setConfidence(w http.ResponseWriter, r *http.Request) (any, error) {
	_, err := update(w, r, "id", "account", func(id string, in upstream.ConfidenceSettings) (any, error) {
		return nil, s.api.SetConfidenceSettings(r.Context(), id, in)
	})
	return nil, err
}

func (s *server) setNotifications(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "account", func(id string, in upstream.NotificationSettings) (upstream.NotificationSettings, error) {
		return s.api.SetNotificationSettings(r.Context(), id, in)
	})
}

// Users.

func (s *server) listUsers(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.UserFields, func(q upstream.ListQuery) (upstream.Page[upstream.User], error) {
		return s.api.ListUsers(r.Context(), q)
	})
}

func (s *server) listUsersLegacy(w http.ResponseWriter, r *http.Request) (any, error) {
	qs := r.URL.Query()
	lq, err := upstream.ParseLegacyUserFilter(qs.Get("filter"))
	if err != nil {
		return nil, err
	}
	if lq.Skip, err = ParseSkip(qs, "skip"); err != nil {
		return nil, err
	}
	if lq.Take, err = ParseLimit(qs, "take"); err != nil {
		return nil, err
	}
	if lq.IncludeShadowedRoles, err = ParseBool(qs, "includeShadowedRoles"); err != nil {
		return nil, err
	}
	p, err := s.api.ListUsersLegacy(r.Context(), lq)
	if err != nil {
		return nil, err
	}
	return nonNil(p), nil
}

func (s *server) getUser(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "id", "user", upstream.UserFields, func(id string) (upstream.User, error) { return s.api.GetUser(r.Context(), id) })
}

func (s *server) createUser(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(u upstream.User) string { return "/api/v2/users/" + u.ID },
		func(in upstream.UserInput) (upstream.User, error) { return s.api.CreateUser(r.Context(), in) })
}

func (s *server) updateUser(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "user", func(id string, p upstream.UserPatch) (upstream.User, error) {
		return s.api.UpdateUser(r.Context(), id, p)
	})
}

func (s *server) createUserToken(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "user")
	if err != nil {
		return nil, err
	}
	return s.issueToken(w, r, id)
}

// Employees.

func (s *server) listEmployees(w http.ResponseWriter, r *http.Request) (any, error) {
	lq, vw, err := parseList(r, upstream.EmployeeFields, "take")
	if err != nil {
		return nil, err
	}
	p, err := s.api.ListEmployees(r.Context(), lq)
	if err != nil {
		return nil, err
	}
	return shaped{v: nonNil(p), view: vw, list: true}, nil
}

func (s *server) getEmployee(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "employeeId", "employee")
	if err != nil {
		return nil, err
	}
	e, err := s.api.GetEmployee(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return upstream.EmployeeInfo{Info: e}, nil
}

// Teams.

func (s *server) listTeams(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.TeamFields, func(q upstream.ListQuery) (upstream.Page[upstream.Team], error) {
		return s.api.ListTeams(r.Context(), q)
	})
}

func (s *server) getTeam(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "teamId", "team", upstream.TeamFields, func(id string) (upstream.Team, error) {
		return s.api.GetTeam(r.Context(), id)
	})
}

func (s *server) createTeam(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(t upstream.Team) string { return "/api/v1/teams/" + t.ID },
		func(in upstream.TeamInput) (upstream.Team, error) { return s.api.CreateTeam(r.Context(), in) })
}

func (s *server) updateTeam(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "teamId", "team", func(id string, p upstream.TeamPatch) (upstream.Team, error) {
		return s.api.UpdateTeam(r.Context(), id, p)
	})
}

func (s *server) deleteTeam(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "teamId", "team", func(id string) error { return s.api.DeleteTeam(r.Context(), id) })
}

func (s *server) addTeamMember(w http.ResponseWriter, r *http.Request) (any, error) {
	team, err := pathID(r, "teamId", "team")
	if err != nil {
		return nil, err
	}
	user, err := pathID(r, "userId", "user")
	if err != nil {
		return nil, err
	}
	return s.api.AddTeamMember(r.Context(), team, user)
}

func (s *server) removeTeamMember(w http.ResponseWriter, r *http.Request) (any, error) {
	team, err := pathID(r, "teamId", "team")
	if err != nil {
		return nil, err
	}
	user, err := pathID(r, "userId", "user")
	if err != nil {
		return nil, err
	}
	return nil, s.api.RemoveTeamMember(r.Context(), team, user)
}

// Roles.

func (s *server) listRoles(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.RoleFields, func(q upstream.ListQuery) (upstream.Page[upstream.Role], error) {
		return s.api.ListRoles(r.Context(), q)
	})
}

func (s *server) listRoleMappings(w http.ResponseWriter, r *http.Request) (any, error) {
	rs, err := s.api.ListRoleMappings(r.Context())
	if err != nil {
		return nil, err
	}
	if rs == nil {
		rs = []upstream.Role{}
	}
	return upstream.Page[upstream.Role]{Items: rs, TotalCount: len(rs)}, nil
}

func (s *server) getRole(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "id", "role", nil, func(id string) (upstream.Role, error) { return s.api.GetRole(r.Context(), id) })
}

func (s *server) createRole(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(x upstream.Role) string { return "/api/v1/roles/" + x.ID },
		func(in upstream.RoleInput) (upstream.Role, error) { return s.api.CreateRole(r.Context(), in) })
}

func (s *server) createRoleMapping(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, nil, func(in upstream.RoleMappingInput) (upstream.Role, error) {
		return s.api.CreateRoleMapping(r.Context(), in)
	})
}

func (s *server) updateRole(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "id", "role", func(id string, p upstream.RolePatch) (upstream.Role, error) {
		return s.api.UpdateRole(r.Context(), id, p)
	})
}

func (s *server) deleteRoleMapping(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "id", "role mapping", func(id string) error { return s.api.DeleteRoleMapping(r.Context(), id) })
}

func (s *server) deleteRole(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "id", "role", func(id string) error { return s.api.DeleteRole(r.Context(), id) })
}

// Permissions.

func (s *server) listActions(w http.ResponseWriter, r *http.Request) (any, error) {
	as, err := s.api.ListActions(r.Context())
	if err != nil {
		return nil, err
	}
	return struct {
		Items []upstream.ActionDescriptor `json:"items"`
	}{as}, nil
}

func (s *server) allowedActions(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "targetId", "item")
	if err != nil {
		return nil, err
	}
	tt := r.URL.Query().Get("targetType")
	if tt == "" {
		return nil, upstream.Invalid("targetType", "is required: metric, goal, session or insightBoard")
	}
	return s.api.AllowedActions(r.Context(), tt, id)
}

func (s *server) defaultAccess(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.api.DefaultAccess(r.Context(), urlParam(r, "itemType"))
}

func (s *server) itemAccess(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "itemId", urlParam(r, "itemType"))
	if err != nil {
		return nil, err
	}
	return s.api.ItemAccess(r.Context(), urlParam(r, "itemType"), id)
}

func (s *server) setItemAccess(w http.ResponseWriter, r *http.Request) (any, error) {
	return update(w, r, "itemId", urlParam(r, "itemType"), func(id string, in upstream.Access) (upstream.Access, error) {
		return s.api.SetItemAccess(r.Context(), urlParam(r, "itemType"), id, in)
	})
}

func (s *server) effectivePermissions(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.api.EffectivePermissions(r.Context())
}

func (s *server) getPrincipalPermissions(w http.ResponseWriter, r *http.Request) (any, error) {
	id, err := pathID(r, "id", "principal")
	if err != nil {
		return nil, err
	}
	return s.api.GetPrincipalPermissions(r.Context(), id)
}

func (s *server) setPrincipalPermissions(w http.ResponseWriter, r *http.Request) (any, error) {
	_, err := update(w, r, "id", "principal", func(id string, in upstream.PrincipalPermissionsInput) (any, error) {
		return nil, s.api.SetPrincipalPermissions(r.Context(), id, in)
	})
	return nil, err
}

func (s *server) getPermission(w http.ResponseWriter, r *http.Request) (any, error) {
	return one(r, "id", "permission", nil, func(id string) (upstream.Permission, error) { return s.api.GetPermission(r.Context(), id) })
}

func (s *server) createPermission(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, func(p upstream.Permission) string { return "/api/v1/permissions/" + p.ID },
		func(in upstream.PermissionInput) (upstream.Permission, error) {
			return s.api.CreatePermission(r.Context(), in)
		})
}
