package sqlstore

import (
	"context"
	"slices"

	"github.com/okrgate/okrgate/upstream"
)

const maxComment = 10000

// ListAnnouncements lists announcements.
func (s *Store) ListAnnouncements(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Announcement], error) {
	return listPage(ctx, s, listing[upstream.Announcement]{action: upstream.AnnounceRead, table: announcements}, lq)
}

// GetAnnouncement returns one announcement.
func (s *Store) GetAnnouncement(ctx context.Context, id string) (upstream.Announcement, error) {
	q, c, err := s.readAs(ctx, upstream.AnnounceRead)
	if err != nil {
		return upstream.Announcement{}, err
	}
	return announcements.get(ctx, q, c.AccountID, id)
}

// CreateAnnouncement creates an announcement; its author (the caller unless
// authorID names another user of the account) is embedded.
func (s *Store) CreateAnnouncement(ctx context.Context, in upstream.AnnouncementInput) (upstream.Announcement, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Announcement{}, err
	}
	a := upstream.Announcement{ID: s.ids.New(), AccountID: c.AccountID, AnnouncementTargetID: in.AnnouncementTargetID,
		AnnouncementType: in.AnnouncementType, AuthorID: in.AuthorID, NotificationStrategy: in.NotificationStrategy,
		DateCreated: s.timestamp(), Reactions: []upstream.Reaction{}}
	if a.Comment, err = checkText("comment", in.Comment, true, maxComment); err != nil {
		return upstream.Announcement{}, err
	}
	for field, v := range map[string]string{"announcementTargetId": a.AnnouncementTargetID, "announcementType": a.AnnouncementType, "notificationStrategy": a.NotificationStrategy} {
		if len(v) > 200 {
			return upstream.Announcement{}, upstream.Invalid(field, "must be at most 200 characters")
		}
	}
	if a.Notify, err = checkIDs("notify", in.Notify); err != nil {
		return upstream.Announcement{}, err
	}
	if a.AuthorID == "" {
		a.AuthorID = c.UserID
	}
	err = s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, upstream.AnnounceManage, nil); err != nil {
			return err
		}
		if !upstream.ValidID(a.AuthorID) {
			return upstream.Invalid("authorID", "%q is not an id", a.AuthorID)
		}
		u, err := users.get(ctx, q, c.AccountID, a.AuthorID)
		if upstream.ErrorCode(err) == upstream.CodeNotFound {
			return upstream.Invalid("authorID", "no user %q", a.AuthorID)
		}
		if err != nil {
			return err
		}
		a.Author = upstream.AnnouncementAuthor{AccountID: u.AccountID, DateCreated: u.DateCreated, Email: u.Email,
			FirstName: u.FirstName, ID: u.ID, Language: u.Language, LastName: u.LastName, Name: u.Name, Picture: u.Picture}
		return announcements.insert(ctx, q, c.AccountID, &a)
	})
	if err != nil {
		return upstream.Announcement{}, err
	}
	return a, nil
}

// UpdateAnnouncement changes an announcement's comment.
func (s *Store) UpdateAnnouncement(ctx context.Context, id string, p upstream.AnnouncementPatch) (upstream.Announcement, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Announcement{}, err
	}
	if p.Comment == nil {
		return upstream.Announcement{}, upstream.Invalid("comment", "is required")
	}
	comment, err := checkText("comment", *p.Comment, true, maxComment)
	if err != nil {
		return upstream.Announcement{}, err
	}
	return s.changeAnnouncement(ctx, c, id, upstream.AnnounceManage, func(a *upstream.Announcement) { a.Comment = comment })
}

// DeleteAnnouncement deletes an announcement.
func (s *Store) DeleteAnnouncement(ctx context.Context, id string) error {
	return deleteByID(ctx, s, announcements, upstream.AnnounceManage, id)
}

// ReactToAnnouncement adds the caller's reaction, once per reaction id.
func (s *Store) ReactToAnnouncement(ctx context.Context, id, reactionID string) (upstream.Announcement, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.Announcement{}, err
	}
	if reactionID, err = checkText("reactionId", reactionID, true, 100); err != nil {
		return upstream.Announcement{}, err
	}
	r := upstream.Reaction{ReactionID: reactionID, UserID: c.UserID}
	return s.changeAnnouncement(ctx, c, id, upstream.AnnounceRead, func(a *upstream.Announcement) {
		if !slices.Contains(a.Reactions, r) {
			a.Reactions = append(a.Reactions, r)
		}
	})
}

func (s *Store) changeAnnouncement(ctx context.Context, c upstream.Caller, id string, action upstream.Action, change func(*upstream.Announcement)) (upstream.Announcement, error) {
	var a upstream.Announcement
	err := s.tx(ctx, func(q querier) error {
		if err := s.authorize(ctx, q, c, action, nil); err != nil {
			return err
		}
		var err error
		if a, err = announcements.get(ctx, q, c.AccountID, id); err != nil {
			return err
		}
		change(&a)
		a.Reactions = nonNil(a.Reactions)
		return announcements.update(ctx, q, c.AccountID, &a)
	})
	if err != nil {
		return upstream.Announcement{}, err
	}
	return a, nil
}
