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
// permissions; the operations the route table maps one to one are
// generated (api_gen.go).

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

func (c *Client) GetEmployee(ctx context.Context, id string) (upstream.Employee, error) {
	e, err := get[upstream.EmployeeInfo](ctx, c, "/api/v1/employees/{employeeId}", id)
	return e.Info, err
}

func (c *Client) ListRoleMappings(ctx context.Context) ([]upstream.Role, error) {
	p, err := get[upstream.Page[upstream.Role]](ctx, c, "/api/v1/roles/account/mapping/")
	return p.Items, err
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

// ListPermissions lists grants; without the designed listing it asks for
// the grants an id filter names one at a time (at most MaxFallbackCalls).
func (c *Client) ListPermissions(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Permission], error) {
	if c.opts.Capabilities.Permissions {
		return list[upstream.Permission](ctx, c, listing{route: "/api/v2/permissions", reg: upstream.PermissionFields}, q)
	}
	return c.permissionsPerID(ctx, q)
}

// API tokens.

// IssueToken creates a token for the caller (userID "") or for userID.
func (c *Client) IssueToken(ctx context.Context, userID string, in upstream.TokenInput) (upstream.NewToken, error) {
	if userID == "" {
		return write[upstream.NewToken](ctx, c, http.MethodPost, "/api/v2/users/me/tokens", in)
	}
	return write[upstream.NewToken](ctx, c, http.MethodPost, "/api/v2/users/{id}/tokens", in, userID)
}

// CreateUserToken is IssueToken for the user with the defaults: the
// route POST /api/v2/users/{id}/tokens serves IssueToken, and its answer's
// token is the secret.
func (c *Client) CreateUserToken(ctx context.Context, id string) (upstream.UserToken, error) {
	t, err := c.IssueToken(ctx, id, upstream.TokenInput{})
	return upstream.UserToken{Token: t.Secret}, err
}

func (c *Client) ListTokens(ctx context.Context) ([]upstream.Token, error) {
	p, err := get[struct {
		Items []upstream.Token `json:"items"`
	}](ctx, c, "/api/v2/users/me/tokens")
	return p.Items, err
}
