package rest

import (
	"net/http"

	"github.com/okrgate/okrgate/upstream"
)

// orgTable holds the organisation: accounts, users, employees, teams, roles
// and permissions.
func orgTable() []entry {
	const (
		get = http.MethodGet
		ok  = http.StatusOK
	)
	return []entry{
		{Route{Method: get, Pattern: "/api/v2/teams", Params: listParams, Success: ok}, (*server).listTeams},
		{Route{Method: get, Pattern: "/api/v1/teams/{teamId}", Account: true, Params: []string{"formatting"}, Success: ok}, (*server).getTeam},
		{Route{Method: get, Pattern: "/api/v2/users", Params: []string{"fields", "sort", "filter", "skip", "limit"}, Success: ok, Designed: true}, (*server).listUsers},
	}
}

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

func (s *server) listUsers(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.UserFields, func(q upstream.ListQuery) (upstream.Page[upstream.User], error) {
		return s.api.ListUsers(r.Context(), q)
	})
}
