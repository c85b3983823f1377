package sqlstore

import (
	"context"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// TeamInput creates a team.
type TeamInput = upstream.TeamInput

// CreateTeam adds a team to the caller's account; its members get the team
// in their teamIds.
func (s *Store) CreateTeam(ctx context.Context, in TeamInput) (upstream.Team, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Team{}, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return upstream.Team{}, upstream.Invalid("name", "must not be empty")
	}
	t := upstream.Team{
		ID: s.ids.New(), AccountID: c.AccountID, Name: name, Description: in.Description,
		Color: in.Color, Avatar: in.Avatar, ParentID: in.ParentID, Manager: in.Manager,
		Members: []string{}, MovedExternalMembers: []string{}, Mentions: map[string]any{},
		Badges: []upstream.Badge{}, Tags: []upstream.TeamTag{},
		CreatedByID: c.UserID, ModifiedByID: c.UserID, DateCreated: s.timestamp(),
	}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.TeamsManage, nil); err != nil {
			return err
		}
		if t.ParentID != "" {
			if _, err := teams.get(ctx, q, c.AccountID, t.ParentID); err != nil {
				return upstream.Invalid("parentId", "no team %q", t.ParentID)
			}
		}
		members := slices.Clone(in.Members)
		if t.Manager != "" && !slices.Contains(members, t.Manager) {
			members = append(members, t.Manager)
		}
		found, err := users.in(ctx, q, c.AccountID, "id", members)
		if err != nil {
			return err
		}
		if len(found) != len(dedupe(members)) {
			return upstream.Invalid("members", "every member and the manager must be a user of the account")
		}
		for _, u := range found {
			t.Members = append(t.Members, u.ID)
			u.TeamIDs = append(u.TeamIDs, t.ID)
			if err := users.update(ctx, q, c.AccountID, &u); err != nil {
				return err
			}
		}
		return teams.insert(ctx, q, c.AccountID, &t)
	})
	if err != nil {
		return upstream.Team{}, err
	}
	return t, nil
}

// ListTeams lists the teams of the caller's account.
func (s *Store) ListTeams(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Team], error) {
	return listPage(ctx, s, listing[upstream.Team]{action: upstream.TeamsRead, table: teams,
		then: func(ctx context.Context, q querier, c upstream.Caller, items []upstream.Team, _ upstream.ListQuery) ([]upstream.Team, error) {
			return items, s.withBadges(ctx, q, c.AccountID, items)
		}}, lq)
}

// GetTeam returns one team of the caller's account.
func (s *Store) GetTeam(ctx context.Context, id string) (upstream.Team, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Team{}, err
	}
	q := s.read()
	t, err := teams.get(ctx, q, c.AccountID, id)
	if err != nil {
		return upstream.Team{}, err
	}
	if err := s.authorize(ctx, q, c, upstream.TeamsRead, nil); err != nil {
		return upstream.Team{}, err
	}
	ts := []upstream.Team{t}
	if err := s.withBadges(ctx, q, c.AccountID, ts); err != nil {
		return upstream.Team{}, err
	}
	return ts[0], nil
}

func dedupe(xs []string) []string {
	out := make([]string, 0, len(xs))
	seen := make(map[string]bool, len(xs))
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
