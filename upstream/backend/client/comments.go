package client

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
)

// ListComments uses the filtered listing of comments (GET /api/v1/comments).
func (c *Client) ListComments(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Comment], error) {
	return list[upstream.Comment](ctx, c, listing{route: "/api/v1/comments", reg: upstream.CommentFields}, q)
}
