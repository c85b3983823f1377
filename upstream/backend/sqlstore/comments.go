package sqlstore

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
)

// comments holds the comments on key results (migration 00022 on SQLite,
// 00014 on PostgreSQL).
var comments = table[upstream.Comment]{name: "comments", kind: "comment", reg: upstream.CommentFields,
	cols: []string{"target_id"},
	keys: func(c *upstream.Comment) []any { return []any{c.TargetID} },
	id:   func(c *upstream.Comment) string { return c.ID }}

// ListComments lists the comments on the key results the caller may read.
func (s *Store) ListComments(ctx context.Context, lq upstream.ListQuery) (upstream.Page[upstream.Comment], error) {
	return listPage(ctx, s, listing[upstream.Comment]{action: upstream.MetricsRead, table: comments,
		source: scoped(s.commentSource)}, lq)
}

// commentSource returns the comments of the account whose key result the
// scope lets its caller read: a comment is shown as its key result is.
func (s *Store) commentSource(account string, sc *scope) (string, []any) {
	mv, args := sc.metricVisible("cm.", account)
	return `(SELECT * FROM comments WHERE account_id = ? AND EXISTS (SELECT 1 FROM metrics cm WHERE cm.id = comments.target_id AND cm.account_id = ? AND ` + mv + `))`,
		append([]any{account, account}, args...)
}

// CreateComment comments on a key result the caller may read, as the
// caller (upstream.CheckCommentInput, the comments:create action).
func (s *Store) CreateComment(ctx context.Context, in upstream.CommentInput) (upstream.Comment, error) {
	in, err := upstream.CheckCommentInput(in)
	if err != nil {
		return upstream.Comment{}, err
	}
	var cm upstream.Comment
	err = s.writeAsCaller(ctx, upstream.CommentsCreate, func(q querier, c upstream.Caller) error {
		if err := s.authorizeMetric(ctx, q, c, upstream.MetricsRead, in.TargetID); err != nil {
			return err
		}
		cm = upstream.Comment{ID: s.ids.New(), TargetType: in.TargetType, TargetID: in.TargetID, Text: in.Text,
			CreatedBy: c.UserID, CreatedAt: s.timestamp()}
		return comments.insert(ctx, q, c.AccountID, &cm)
	})
	if err != nil {
		return upstream.Comment{}, err
	}
	return cm, nil
}

// DeleteComment deletes a comment on a key result the caller may read: its
// own, or any for an admin (upstream.MayDeleteComment).
func (s *Store) DeleteComment(ctx context.Context, id string) error {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(q querier) error {
		cm, err := comments.get(ctx, q, c.AccountID, id)
		if err != nil {
			return err
		}
		if err := s.authorizeMetric(ctx, q, c, upstream.MetricsRead, cm.TargetID); err != nil {
			if upstream.ErrorCode(err) == upstream.CodeForbidden {
				return upstream.NotFound("comment", id) // not shown to the caller: not found
			}
			return err
		}
		sub, err := s.loadSubject(ctx, q, c)
		if err != nil {
			return err
		}
		if err := upstream.MayDeleteComment(c, sub, cm); err != nil {
			return err
		}
		return comments.deleteWhere(ctx, q, c.AccountID, "id = ?", id)
	})
}
