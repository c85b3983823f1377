package sqlstore

import (
	"context"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// ListBadges lists the account's badges.
func (s *Store) ListBadges(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Badge], error) {
	return listPage(ctx, s, listing[upstream.Badge]{action: upstream.BadgesRead, table: badges}, lq)
}

// GetBadge returns one badge.
func (s *Store) GetBadge(ctx context.Context, id string) (upstream.Badge, error) {
	q, c, err := s.readAs(ctx, upstream.BadgesRead)
	if err != nil {
		return upstream.Badge{}, err
	}
	return badges.get(ctx, q, c.AccountID, id)
}

func checkBadge(b *upstream.Badge) error {
	var err error
	if b.Name, err = checkText("name", b.Name, true, 200); err != nil {
		return err
	}
	if len(b.Summary) > 2000 {
		return upstream.Invalid("summary", "must be at most 2000 characters")
	}
	for field, v := range map[string]string{"icon": b.Icon, "background": b.Background, "pattern": b.Pattern} {
		if len(v) > 2000 {
			return upstream.Invalid(field, "must be at most 2000 characters")
		}
	}
	return nil
}

// CreateBadge creates a badge.
func (s *Store) CreateBadge(ctx context.Context, in upstream.BadgeInput) (upstream.Badge, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Badge{}, err
	}
	b := upstream.Badge{ID: s.ids.New(), Name: in.Name, Summary: in.Summary, Icon: in.Icon, Background: in.Background, Pattern: in.Pattern}
	if err := checkBadge(&b); err != nil {
		return upstream.Badge{}, err
	}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.BadgesManage, nil); err != nil {
			return err
		}
		return badges.insert(ctx, q, c.AccountID, &b)
	})
	if err != nil {
		return upstream.Badge{}, err
	}
	return b, nil
}

// UpdateBadge changes a badge.
func (s *Store) UpdateBadge(ctx context.Context, id string, p upstream.BadgePatch) (upstream.Badge, error) {
	var b upstream.Badge
	return writeAs(ctx, s, upstream.BadgesManage, &b, func(q querier, c upstream.Caller) error {
		var err error
		if b, err = badges.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		set := func(dst *string, v *string) {
			if v != nil {
				*dst = *v
			}
		}
		set(&b.Name, p.Name)
		set(&b.Summary, p.Summary)
		set(&b.Icon, p.Icon)
		set(&b.Background, p.Background)
		set(&b.Pattern, p.Pattern)
		if err := checkBadge(&b); err != nil {
			return err
		}
		return badges.update(ctx, q, c.AccountID, &b)
	})
}

// DeleteBadge deletes a badge and its assignments.
func (s *Store) DeleteBadge(ctx context.Context, id string) error {
	return s.writeAsCaller(ctx, upstream.BadgesManage, func(q querier, c upstream.Caller) error {
		if _, err := badges.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		if err := badgeAssignments.deleteWhere(ctx, q, c.AccountID, "badge_id = ?", id); err != nil {
			return err
		}
		return badges.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}

// AssignBadge records a pending assignment of a badge to users and teams.
func (s *Store) AssignBadge(ctx context.Context, in upstream.AssignBadgeInput) (upstream.AssignedBadge, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.AssignedBadge{}, err
	}
	if in.BadgeID == "" {
		return upstream.AssignedBadge{}, upstream.Invalid("badgeId", "is required")
	}
	if !upstream.ValidID(in.BadgeID) {
		return upstream.AssignedBadge{}, upstream.Invalid("badgeId", "%q is not an id", in.BadgeID)
	}
	if len(in.AssigneeIDs) == 0 {
		return upstream.AssignedBadge{}, upstream.Invalid("assigneeIds", "must name at least one user or team")
	}
	if len(in.AssigneeIDs) > upstream.MaxLimit {
		return upstream.AssignedBadge{}, upstream.Invalid("assigneeIds", "at most %d assignees", upstream.MaxLimit)
	}
	a := upstream.AssignedBadge{ID: s.ids.New(), AccountID: c.AccountID, BadgeID: in.BadgeID, AssignedByID: c.UserID,
		AssignedOn: s.timestamp(), Status: upstream.BadgePending, NotificationStrategy: in.NotificationStrategy,
		RichTextComment: in.RichTextComment}
	if a.AssigneeIDs, err = checkIDs("assigneeIds", in.AssigneeIDs); err != nil {
		return upstream.AssignedBadge{}, err
	}
	if a.Notify, err = checkIDs("notify", in.Notify); err != nil {
		return upstream.AssignedBadge{}, err
	}
	if a.Comment, err = checkText("comment", in.Comment, false, 10000); err != nil {
		return upstream.AssignedBadge{}, err
	}
	if len(a.RichTextComment) > 20000 {
		return upstream.AssignedBadge{}, upstream.Invalid("richTextComment", "must be at most 20000 characters")
	}
	if len(a.NotificationStrategy) > 100 {
		return upstream.AssignedBadge{}, upstream.Invalid("notificationStrategy", "must be at most 100 characters")
	}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.BadgesAssign, nil); err != nil {
			return err
		}
		if _, err := badges.get(ctx, q, c.AccountID, a.BadgeID); err != nil {
			if upstream.ErrorCode(err) == upstream.CodeNotFound {
				return upstream.Invalid("badgeId", "no badge %q", a.BadgeID)
			}
			return err
		}
		us, err := users.in(ctx, q, c.AccountID, "id", a.AssigneeIDs)
		if err != nil {
			return err
		}
		ts, err := teams.in(ctx, q, c.AccountID, "id", a.AssigneeIDs)
		if err != nil {
			return err
		}
		known := map[string]bool{}
		for _, u := range us {
			known[u.ID] = true
		}
		for _, t := range ts {
			known[t.ID] = true
		}
		for i, id := range a.AssigneeIDs {
			if !known[id] {
				return upstream.Invalid(fmt.Sprintf("assigneeIds[%d]", i), "no user or team %q", id)
			}
		}
		return badgeAssignments.insert(ctx, q, c.AccountID, &a)
	})
	if err != nil {
		return upstream.AssignedBadge{}, err
	}
	return a, nil
}

// ListAssignedBadges lists assignments in the approval-list form.
func (s *Store) ListAssignedBadges(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.AssignedBadge], error) {
	return listPage(ctx, s, listing[upstream.AssignedBadge]{action: upstream.BadgesRead, table: badgeAssignments}, lq)
}

// CurrentUserBadges lists the caller's assignments (directly or through a
// team of the caller) that are not rejected, newest first, each with its
// badge embedded.
func (s *Store) CurrentUserBadges(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.AssignedBadge], error) {
	q, c, err := s.readAs(ctx, upstream.BadgesRead)
	if err != nil {
		return upstream.Page[upstream.AssignedBadge]{}, err
	}
	holders := []string{c.UserID}
	if u, err := users.get(ctx, q, c.AccountID, c.UserID); err == nil {
		holders = append(holders, u.TeamIDs...)
	} else if upstream.ErrorCode(err) != upstream.CodeNotFound {
		return upstream.Page[upstream.AssignedBadge]{}, err
	}
	all, err := badgeAssignments.where(ctx, q, c.AccountID,
		"status != 'rejected' AND EXISTS (SELECT 1 FROM "+dialectOf(q).each("doc", "j", "assigneeIds")+" WHERE j.value IN "+idList+")", idsParam(holders))
	if err != nil {
		return upstream.Page[upstream.AssignedBadge]{}, err
	}
	items, total, err := pageInMemory(ctx, all, lq, func(a, b upstream.AssignedBadge) bool {
		if a.AssignedOn != b.AssignedOn {
			return a.AssignedOn > b.AssignedOn
		}
		return a.ID < b.ID
	})
	if err != nil {
		return upstream.Page[upstream.AssignedBadge]{}, err
	}
	ids := make([]string, 0, len(items))
	for _, a := range items {
		ids = append(ids, a.BadgeID)
	}
	bs, err := badges.in(ctx, q, c.AccountID, "id", dedupe(ids))
	if err != nil {
		return upstream.Page[upstream.AssignedBadge]{}, err
	}
	byID := map[string]upstream.Badge{}
	for _, b := range bs {
		byID[b.ID] = b
	}
	for i := range items {
		b := byID[items[i].BadgeID]
		items[i].Badge = &b
		items[i].BadgeID, items[i].RichTextComment = "", ""
	}
	return upstream.Page[upstream.AssignedBadge]{Items: items, TotalCount: total}, nil
}

// BadgeAssignees returns the users and teams holding a badge (approved).
func (s *Store) BadgeAssignees(ctx context.Context, badgeID string) (upstream.BadgeAssignees, error) {
	q, c, err := s.readAs(ctx, upstream.BadgesRead)
	if err != nil {
		return upstream.BadgeAssignees{}, err
	}
	if _, err := badges.get(ctx, q, c.AccountID, badgeID); err != nil {
		return upstream.BadgeAssignees{}, err
	}
	as, err := badgeAssignments.where(ctx, q, c.AccountID, "badge_id = ? AND status = 'approved'", badgeID)
	if err != nil {
		return upstream.BadgeAssignees{}, err
	}
	var ids []string
	for _, a := range as {
		ids = append(ids, a.AssigneeIDs...)
	}
	ids = dedupe(ids)
	out := upstream.BadgeAssignees{Teams: []upstream.Team{}, Users: []upstream.User{}}
	if out.Users, err = users.in(ctx, q, c.AccountID, "id", ids); err != nil {
		return upstream.BadgeAssignees{}, err
	}
	if out.Teams, err = teams.in(ctx, q, c.AccountID, "id", ids); err != nil {
		return upstream.BadgeAssignees{}, err
	}
	out.Users, out.Teams = nonNil(out.Users), nonNil(out.Teams)
	return out, nil
}

// DecideBadge approves or rejects a pending assignment. The same decision
// again is not_modified (304); the opposite one is a conflict (409).
func (s *Store) DecideBadge(ctx context.Context, id string, approve bool) (upstream.AssignedBadge, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.AssignedBadge{}, err
	}
	want := upstream.BadgeRejected
	if approve {
		want = upstream.BadgeApproved
	}
	var a upstream.AssignedBadge
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.BadgesApprove, nil); err != nil {
			return err
		}
		if a, err = badgeAssignments.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		switch a.Status {
		case want:
			return upstream.Errorf(upstream.CodeNotModified, "the badge assignment is already %s", want)
		case upstream.BadgePending:
		default:
			return upstream.Errorf(upstream.CodeConflict, "the badge assignment is %s; only a pending one can be %s", a.Status, want)
		}
		a.Status = want
		if approve {
			a.ApprovedBy = c.UserID
		}
		return badgeAssignments.update(ctx, q, c.AccountID, &a)
	})
	if err != nil {
		return upstream.AssignedBadge{}, err
	}
	return a, nil
}
