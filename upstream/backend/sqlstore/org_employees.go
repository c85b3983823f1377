package sqlstore

import (
	"context"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

// Employees.

// ListEmployees lists users as employees, with their teams and managed teams.
func (s *Store) ListEmployees(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Employee], error) {
	var es []upstream.Employee
	p, err := listPage(ctx, s, listing[upstream.User]{action: upstream.UsersRead, table: employees,
		then: func(ctx context.Context, q querier, c upstream.Caller, us []upstream.User, _ upstream.ListQuery) ([]upstream.User, error) {
			var err error
			es, err = s.toEmployees(ctx, q, c.AccountID, us, false)
			return us, err
		}}, lq)
	return upstream.Page[upstream.Employee]{Items: es, TotalCount: p.TotalCount}, err
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
