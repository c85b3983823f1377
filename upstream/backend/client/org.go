package client

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The organisation: users, teams, the account, employees, roles and
// permissions.

const (
	routeUser       = "/api/v2/users/{id}"
	routeTeam       = "/api/v1/teams/{teamId}"
	routeAccount    = "/api/v1/accounts/{id}"
	routeRole       = "/api/v1/roles/account/{id}"
	routeItemAccess = "/api/v1/permissions/default-access/{itemType}/{itemId}"
	routePrincipal  = "/api/v1/permissions/principal/{id}"
)

func (c *Client) ListUsers(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.User], error) {
	return list[upstream.User](ctx, c, listing{route: "/api/v2/users", reg: upstream.UserFields}, q)
}

func (c *Client) GetUser(ctx context.Context, id string) (upstream.User, error) {
	return get[upstream.User](ctx, c, routeUser, id)
}

// ListUsersLegacy writes q back as the deprecated listing's
// property:value filter (upstream.ParseLegacyUserFilter reads it).
func (c *Client) ListUsersLegacy(ctx context.Context, q upstream.LegacyUserQuery) (upstream.Page[upstream.User], error) {
	var terms []string
	for _, t := range []struct {
		prop string
		vals []string
	}{{"email", q.Email}, {"name", q.Name}, {"roles", q.Roles}} {
		for _, v := range t.vals {
			terms = append(terms, t.prop+":"+v)
		}
	}
	v := url.Values{}
	if len(terms) > 0 {
		v.Set("filter", strings.Join(terms, ","))
	}
	l := listing{route: "/api/v1/accounts/users", limit: "take", extra: v}
	if q.IncludeShadowedRoles {
		v.Set("includeShadowedRoles", "true")
	}
	return list[upstream.User](ctx, c, l, upstream.ListQuery{Skip: q.Skip, Limit: q.Take})
}

// CreateUser: the REST body names roles by id (UserInput.Role is not part
// of it), so a role given by name is looked up first.
func (c *Client) CreateUser(ctx context.Context, in upstream.UserInput) (upstream.User, error) {
	if in.Role != "" && len(in.RoleIDs) == 0 {
		p, err := c.ListRoles(ctx, upstream.ListQuery{Filter: query.Eq("name", in.Role), Limit: 1})
		if err != nil {
			return upstream.User{}, err
		}
		if len(p.Items) == 0 {
			return upstream.User{}, upstream.Invalid("role", "no role named %q", in.Role)
		}
		in.RoleIDs = []string{p.Items[0].ID}
	}
	return write[upstream.User](ctx, c, http.MethodPost, "/api/v2/users", in)
}

func (c *Client) UpdateUser(ctx context.Context, id string, in upstream.UserPatch) (upstream.User, error) {
	return write[upstream.User](ctx, c, http.MethodPatch, routeUser, in, id)
}

func (c *Client) CreateUserToken(ctx context.Context, id string) (upstream.UserToken, error) {
	return write[upstream.UserToken](ctx, c, http.MethodPost, "/api/v2/users/{id}/tokens", nil, id)
}

func (c *Client) ListTeams(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Team], error) {
	return list[upstream.Team](ctx, c, listing{route: "/api/v2/teams", reg: upstream.TeamFields}, q)
}

func (c *Client) GetTeam(ctx context.Context, id string) (upstream.Team, error) {
	return get[upstream.Team](ctx, c, routeTeam, id)
}

func (c *Client) CreateTeam(ctx context.Context, in upstream.TeamInput) (upstream.Team, error) {
	return write[upstream.Team](ctx, c, http.MethodPost, "/api/v1/teams", in)
}

func (c *Client) UpdateTeam(ctx context.Context, id string, in upstream.TeamPatch) (upstream.Team, error) {
	return write[upstream.Team](ctx, c, http.MethodPatch, routeTeam, in, id)
}

func (c *Client) DeleteTeam(ctx context.Context, id string) error {
	return c.exec(ctx, http.MethodDelete, routeTeam, nil, id)
}

func (c *Client) AddTeamMember(ctx context.Context, teamID, userID string) (upstream.Team, error) {
	return write[upstream.Team](ctx, c, http.MethodPut, "/api/v1/teams/{teamId}/members/{userId}", nil, teamID, userID)
}

func (c *Client) RemoveTeamMember(ctx context.Context, teamID, userID string) error {
	return c.exec(ctx, http.MethodDelete, "/api/v1/teams/{teamId}/members/{userId}", nil, teamID, userID)
}

func (c *Client) GetAccount(ctx context.Context, id string) (upstream.Account, error) {
	return get[upstream.Account](ctx, c, routeAccount, id)
}

func (c *Client) UpdateAccount(ctx context.Context, id string, in upstream.AccountPatch) (upstream.Account, error) {
	return write[upstream.Account](ctx, c, http.MethodPut, routeAccount, in, id)
}

func (c *Client) CheckAccountDomain(ctx context.Context, in upstream.DomainCheck) (upstream.DomainAvailability, error) {
	return write[upstream.DomainAvailability](ctx, c, http.MethodPost, "/api/v1/accounts/domain", in)
}

func (c *Client) SetConfidenceSettings(ctx context.Context, id string, in upstream.ConfidenceSettings) error {
	return c.exec(ctx, http.MethodPut, "/api/v1/accounts/{id}/confidence", in, id)
}

func (c *Client) SetNotificationSettings(ctx context.Context, id string, in upstream.NotificationSettings) (upstream.NotificationSettings, error) {
	return write[upstream.NotificationSettings](ctx, c, http.MethodPut, "/api/v1/accounts/{id}/notifications", in, id)
}

func (c *Client) ListEmployees(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Employee], error) {
	return list[upstream.Employee](ctx, c, listing{route: "/api/v2/employees", reg: upstream.EmployeeFields, limit: "take"}, q)
}

func (c *Client) GetEmployee(ctx context.Context, id string) (upstream.Employee, error) {
	e, err := get[upstream.EmployeeInfo](ctx, c, "/api/v1/employees/{employeeId}", id)
	return e.Info, err
}

func (c *Client) ListRoles(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Role], error) {
	return list[upstream.Role](ctx, c, listing{route: "/api/v2/roles", reg: upstream.RoleFields}, q)
}

func (c *Client) GetRole(ctx context.Context, id string) (upstream.Role, error) {
	return get[upstream.Role](ctx, c, "/api/v1/roles/{id}", id)
}

func (c *Client) CreateRole(ctx context.Context, in upstream.RoleInput) (upstream.Role, error) {
	return write[upstream.Role](ctx, c, http.MethodPost, "/api/v1/roles/account", in)
}

func (c *Client) UpdateRole(ctx context.Context, id string, in upstream.RolePatch) (upstream.Role, error) {
	return write[upstream.Role](ctx, c, http.MethodPut, routeRole, in, id)
}

func (c *Client) DeleteRole(ctx context.Context, id string) error {
	return c.exec(ctx, http.MethodDelete, routeRole, nil, id)
}

func (c *Client) ListRoleMappings(ctx context.Context) ([]upstream.Role, error) {
	p, err := get[upstream.Page[upstream.Role]](ctx, c, "/api/v1/roles/account/mapping/")
	return p.Items, err
}

func (c *Client) CreateRoleMapping(ctx context.Context, in upstream.RoleMappingInput) (upstream.Role, error) {
	return write[upstream.Role](ctx, c, http.MethodPost, "/api/v1/roles/account/mapping", in)
}

func (c *Client) DeleteRoleMapping(ctx context.Context, id string) error {
	return c.exec(ctx, http.MethodDelete, "/api/v1/roles/account/mapping/{id}", nil, id)
}

func (c *Client) ListActions(ctx context.Context) ([]upstream.ActionDescriptor, error) {
	p, err := get[struct {
		Items []upstream.ActionDescriptor `json:"items"`
	}](ctx, c, "/api/v1/permissions/actions")
	return p.Items, err
}

func (c *Client) AllowedActions(ctx context.Context, targetType, targetID string) (upstream.AllowedActions, error) {
	const route = "/api/v1/permissions/currentUser-allowedActions/{targetId}"
	var out upstream.AllowedActions
	_, err := c.do(ctx, call{method: http.MethodGet, route: route, path: fill(route, targetID), query: url.Values{"targetType": {targetType}}}, &out)
	return out, err
}

func (c *Client) DefaultAccess(ctx context.Context, itemType string) (upstream.Access, error) {
	return get[upstream.Access](ctx, c, "/api/v1/permissions/default-access/{itemType}", itemType)
}

func (c *Client) ItemAccess(ctx context.Context, itemType, itemID string) (upstream.Access, error) {
	return get[upstream.Access](ctx, c, routeItemAccess, itemType, itemID)
}

func (c *Client) SetItemAccess(ctx context.Context, itemType, itemID string, in upstream.Access) (upstream.Access, error) {
	return write[upstream.Access](ctx, c, http.MethodPut, routeItemAccess, in, itemType, itemID)
}

func (c *Client) EffectivePermissions(ctx context.Context) (upstream.EffectivePermissions, error) {
	return get[upstream.EffectivePermissions](ctx, c, "/api/v1/permissions/effective")
}

func (c *Client) GetPrincipalPermissions(ctx context.Context, principalID string) (upstream.PrincipalPermissions, error) {
	return get[upstream.PrincipalPermissions](ctx, c, routePrincipal, principalID)
}

func (c *Client) SetPrincipalPermissions(ctx context.Context, principalID string, in upstream.PrincipalPermissionsInput) error {
	return c.exec(ctx, http.MethodPut, routePrincipal, in, principalID)
}

func (c *Client) GetPermission(ctx context.Context, id string) (upstream.Permission, error) {
	return get[upstream.Permission](ctx, c, "/api/v1/permissions/{id}", id)
}

// ListPermissions lists grants; without the designed listing it asks for
// the grants an id filter names one at a time (at most MaxFallbackCalls).
func (c *Client) ListPermissions(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Permission], error) {
	if c.opts.Capabilities.Permissions {
		return list[upstream.Permission](ctx, c, listing{route: "/api/v2/permissions", reg: upstream.PermissionFields}, q)
	}
	return c.permissionsPerID(ctx, q)
}

func (c *Client) CreatePermission(ctx context.Context, in upstream.PermissionInput) (upstream.Permission, error) {
	return write[upstream.Permission](ctx, c, http.MethodPost, "/api/v1/permissions", in)
}

// API tokens.

// IssueToken creates a token for the caller (userID "") or for userID.
func (c *Client) IssueToken(ctx context.Context, userID string, in upstream.TokenInput) (upstream.NewToken, error) {
	if userID == "" {
		return write[upstream.NewToken](ctx, c, http.MethodPost, "/api/v2/users/me/tokens", in)
	}
	return write[upstream.NewToken](ctx, c, http.MethodPost, "/api/v2/users/{id}/tokens", in, userID)
}

func (c *Client) ListTokens(ctx context.Context) ([]upstream.Token, error) {
	p, err := get[struct {
		Items []upstream.Token `json:"items"`
	}](ctx, c, "/api/v2/users/me/tokens")
	return p.Items, err
}

func (c *Client) RevokeToken(ctx context.Context, id string) error {
	return c.exec(ctx, http.MethodDelete, "/api/v2/users/me/tokens/{tokenId}", nil, id)
}
