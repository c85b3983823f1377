package sqlstore

import (
	"context"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/upstream"
)

// Teams.

// UpdateTeam changes a team; a new members list replaces the old one (and
// the users' teamIds follow).
func (s *Store) UpdateTeam(ctx context.Context, id string, in upstream.TeamPatch) (upstream.Team, error) {
	var t upstream.Team
	return writeAs(ctx, s, upstream.TeamsManage, &t, func(q querier, c upstream.Caller) error {
		d, err := s.delegationOf(ctx, q, c)
		if err != nil {
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
		if err := s.setMembers(ctx, q, d, c.AccountID, &t, members); err != nil {
			return err
		}
		t.ModifiedByID = c.UserID
		return teams.update(ctx, q, c.AccountID, &t)
	})
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
// Each user who joins or leaves is a change the delegation rule decides
// (d; nil for an admin): joining a team gives what the team gives.
func (s *Store) setMembers(ctx context.Context, q querier, d *delegation, account string, t *upstream.Team, members []string) error {
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
		case in && !had, !in && had:
			if err := checkMembership(d, *t, u, in); err != nil {
				return err
			}
		default:
			continue
		}
		if in {
			u.TeamIDs = append(u.TeamIDs, t.ID)
		} else {
			u.TeamIDs = slices.DeleteFunc(u.TeamIDs, func(x string) bool { return x == t.ID })
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
	return s.writeAsCaller(ctx, upstream.TeamsManage, func(q querier, c upstream.Caller) error {
		d, err := s.delegationOf(ctx, q, c)
		if err != nil {
			return err
		}
		t, err := teams.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if err := s.setMembers(ctx, q, d, c.AccountID, &t, nil); err != nil {
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
	var t upstream.Team
	return writeAs(ctx, s, upstream.TeamsManage, &t, func(q querier, c upstream.Caller) error {
		d, err := s.delegationOf(ctx, q, c)
		if err != nil {
			return err
		}
		if t, err = teams.get(ctx, q, c.AccountID, teamID); err != nil {
			return err
		}
		if _, err := users.get(ctx, q, c.AccountID, userID); err != nil {
			return err
		}
		if err := s.setMembers(ctx, q, d, c.AccountID, &t, append(slices.Clone(t.Members), userID)); err != nil {
			return err
		}
		return teams.update(ctx, q, c.AccountID, &t)
	})
}

// RemoveTeamMember takes a user out of a team (and from its manager seat).
func (s *Store) RemoveTeamMember(ctx context.Context, teamID, userID string) error {
	return s.writeAsCaller(ctx, upstream.TeamsManage, func(q querier, c upstream.Caller) error {
		d, err := s.delegationOf(ctx, q, c)
		if err != nil {
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
		if err := s.setMembers(ctx, q, d, c.AccountID, &t, rest); err != nil {
			return err
		}
		return teams.update(ctx, q, c.AccountID, &t)
	})
}
