package upstream

import (
	"context"
	"strings"

	"github.com/okrgate/okrgate/upstream/query"
)

// Comment is a remark on a key result, kept apart from its check-ins: the
// conversation beside the figures. The real platform lists comments at
// GET /api/v1/comments ({createdBy, targetType, text, createdAt}). A
// comment is shown to whoever may read its key result (CommentVisible), and
// deleted by its author or an admin (MayDeleteComment).
type Comment struct {
	ID string `json:"id"`
	// TargetType is the kind of item commented on: "metric" (a key
	// result), the only one.
	TargetType string `json:"targetType"`
	TargetID   string `json:"targetId"`
	Text       string `json:"text"`
	// CreatedBy is the id of the user who wrote it.
	CreatedBy string `json:"createdBy"`
	CreatedAt string `json:"createdAt"`
}

// CommentInput creates a comment. TargetType defaults to "metric".
type CommentInput struct {
	TargetType string `json:"targetType"`
	TargetID   string `json:"targetId"`
	Text       string `json:"text"`
}

// CommentTargetMetric is the target type of a comment on a key result.
const CommentTargetMetric = "metric"

// MaxCommentText bounds a comment's text, in bytes.
const MaxCommentText = 4096

// CommentService serves the comments on key results.
type CommentService interface {
	// ListComments lists the comments the caller may read: those on key
	// results it may read.
	ListComments(ctx context.Context, q ListQuery) (Page[Comment], error)
	// CreateComment comments on a key result the caller may read, as the
	// caller.
	CreateComment(ctx context.Context, in CommentInput) (Comment, error)
	// DeleteComment deletes a comment: its author's or, for an admin, any.
	DeleteComment(ctx context.Context, id string) error
}

// CheckCommentInput returns in with its text trimmed and its target type
// defaulted, or an invalid_input error naming the field that is wrong.
func CheckCommentInput(in CommentInput) (CommentInput, error) {
	if in.TargetType == "" {
		in.TargetType = CommentTargetMetric
	}
	if in.TargetType != CommentTargetMetric {
		return in, Invalid("targetType", "must be %q (a key result)", CommentTargetMetric)
	}
	if !ValidID(in.TargetID) {
		return in, Invalid("targetId", "%q is not an id", in.TargetID)
	}
	in.Text = strings.TrimSpace(in.Text)
	if in.Text == "" {
		return in, Invalid("text", "must not be empty")
	}
	if len(in.Text) > MaxCommentText {
		return in, Invalid("text", "must be at most %d characters", MaxCommentText)
	}
	return in, nil
}

// MayDeleteComment decides whether the caller c (with its subject sub) may
// delete the comment cm: its author may, so may an admin; no one else,
// whatever they may read. A read-only credential may not.
func MayDeleteComment(c Caller, sub *Subject, cm Comment) error {
	if err := c.CheckWrite(); err != nil {
		return err
	}
	if cm.CreatedBy == c.UserID || (sub != nil && sub.Admin) {
		return nil
	}
	return Errorf(CodeForbidden, "only the author of a comment or an admin may delete it")
}

// CommentFields is the field registry of comments.
var CommentFields = query.NewRegistry("comment",
	col(fs("id", query.ID), "id"),
	fs("targetType", query.String),
	col(fs("targetId", query.ID), "target_id"),
	fs("text", query.String),
	fs("createdBy", query.ID),
	fs("createdAt", query.DateTime),
)
