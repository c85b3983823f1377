package sqlstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

// Users' uploaded pictures (upstream.AvatarService): the avatars table,
// one row per user at most (migrations 00014 sqlite, 00007 postgres). The
// user's document keeps the picture's URL in picture; the row and the
// document change in one transaction, so a picture is never stored
// without a user pointing at it, nor a user pointing at a picture gone.

var _ upstream.AvatarService = (*Store)(nil)

// SetAvatar implements upstream.AvatarService.
func (s *Store) SetAvatar(ctx context.Context, userID string, data []byte) (upstream.User, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return upstream.User{}, err
	}
	ct, err := upstream.CheckAvatar(data)
	if err != nil {
		return upstream.User{}, err
	}
	sum := sha256.Sum256(data)
	a := upstream.Avatar{ID: newAvatarID(), AccountID: c.AccountID, UserID: userID, ContentType: ct,
		ETag: `"` + hex.EncodeToString(sum[:16]) + `"`, Created: upstream.FormatTime(s.now()), Data: data}
	url := upstream.AvatarPath(a.AccountID, a.ID, ct)
	var u upstream.User
	err = s.tx(ctx, func(q querier) error {
		if u, err = s.avatarUser(ctx, q, c, userID, url); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, "DELETE FROM avatars WHERE account_id = ? AND user_id = ?", c.AccountID, userID); err != nil {
			return fmt.Errorf("sqlstore: delete avatar: %w", err)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO avatars (account_id, id, user_id, content_type, etag, created, data)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, a.AccountID, a.ID, a.UserID, a.ContentType, a.ETag, a.Created, a.Data); err != nil {
			return fmt.Errorf("sqlstore: insert avatar: %w", err)
		}
		u.Picture = url
		u.PictureInfo.IsPictureEdited = true
		return users.update(ctx, q, c.AccountID, &u)
	})
	return u, err
}

// DeleteAvatar implements upstream.AvatarService.
func (s *Store) DeleteAvatar(ctx context.Context, userID string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		u, err := s.avatarUser(ctx, q, c, userID, "")
		if err != nil {
			return err
		}
		res, err := q.ExecContext(ctx, "DELETE FROM avatars WHERE account_id = ? AND user_id = ?", c.AccountID, userID)
		if err != nil {
			return fmt.Errorf("sqlstore: delete avatar: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return upstream.Errorf(upstream.CodeNotFound, "user %q has no uploaded picture", userID)
		}
		u.Picture = ""
		u.PictureInfo.IsPictureEdited = false
		return users.update(ctx, q, c.AccountID, &u)
	})
}

// avatarUser reads the user whose picture the caller changes to picture,
// and decides whether it may: as for a patch of the picture alone
// (upstream.SelfPatch), the user themself, or a holder of users:manage.
func (s *Store) avatarUser(ctx context.Context, q querier, c upstream.Caller, userID, picture string) (upstream.User, error) {
	u, err := users.get(ctx, q, c.AccountID, userID)
	if err != nil {
		return upstream.User{}, err
	}
	if !upstream.SelfPatch(c.UserID, userID, upstream.UserPatch{Picture: &picture}) {
		if err := s.authorize(ctx, q, c, upstream.UsersManage, nil); err != nil {
			return upstream.User{}, err
		}
	}
	return u, nil
}

// GetAvatar implements upstream.AvatarService.
func (s *Store) GetAvatar(ctx context.Context, accountID, id string) (upstream.Avatar, error) {
	a := upstream.Avatar{ID: id, AccountID: accountID}
	err := s.read().QueryRowContext(ctx, `SELECT user_id, content_type, etag, created, data FROM avatars
		WHERE account_id = ? AND id = ?`, accountID, id).Scan(&a.UserID, &a.ContentType, &a.ETag, &a.Created, &a.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return upstream.Avatar{}, upstream.NotFound("avatar", id)
	}
	if err != nil {
		return upstream.Avatar{}, fmt.Errorf("sqlstore: get avatar %s: %w", id, err)
	}
	return a, nil
}

// freeAvatar deletes the uploaded picture of a user whose picture changes
// to something else (UpdateUser): nothing points at it any more.
func freeAvatar(ctx context.Context, q querier, account, userID string) error {
	if _, err := q.ExecContext(ctx, "DELETE FROM avatars WHERE account_id = ? AND user_id = ?", account, userID); err != nil {
		return fmt.Errorf("sqlstore: delete avatar: %w", err)
	}
	return nil
}

// newAvatarID returns a random 128-bit name in 32 lowercase hex
// characters: a picture's URL is not guessable from another's.
func newAvatarID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
