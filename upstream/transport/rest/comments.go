package rest

import (
	"net/http"

	"github.com/okrgate/okrgate/upstream"
)

// commentTable holds the comments on key results (upstream.Comment), at the
// path the real platform lists them at.
func commentTable() []entry {
	return []entry{
		{Route{Method: http.MethodGet, Pattern: "/api/v1/comments", Operation: "ListComments", Account: true, Params: filteredParams, Success: http.StatusOK, Designed: true}, (*server).listComments},
		{Route{Method: http.MethodPost, Pattern: "/api/v1/comments", Operation: "CreateComment", Account: true, Success: http.StatusCreated, Designed: true}, (*server).createComment},
		{Route{Method: http.MethodDelete, Pattern: "/api/v1/comments/{id}", Operation: "DeleteComment", Account: true, Success: http.StatusNoContent, Designed: true}, (*server).deleteComment},
	}
}

// commentOps describes the comment operations in the OpenAPI document.
func commentOps() map[string]opSpec {
	return map[string]opSpec{
		"GET /api/v1/comments": {resp: upstream.Page[upstream.Comment]{}, summary: "List comments on key results (filter targetId)",
			desc: "Lists the comments on the key results the caller may read: a comment is shown as its key result is."},
		"POST /api/v1/comments": {body: upstream.CommentInput{}, resp: upstream.Comment{}, summary: "Comment on a key result",
			desc: "Needs comments:create (admins and members) and a key result the caller may read; the author is the caller."},
		"DELETE /api/v1/comments/{id}": {summary: "Delete a comment",
			desc: "Its author, or an admin, may delete a comment; anyone else gets 403 forbidden."},
	}
}

func (s *server) listComments(w http.ResponseWriter, r *http.Request) (any, error) {
	return listed(r, upstream.CommentFields, func(q upstream.ListQuery) (upstream.Page[upstream.Comment], error) {
		return s.api.ListComments(r.Context(), q)
	})
}

func (s *server) createComment(w http.ResponseWriter, r *http.Request) (any, error) {
	return create(w, r, nil, func(in upstream.CommentInput) (upstream.Comment, error) { return s.api.CreateComment(r.Context(), in) })
}

func (s *server) deleteComment(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "id", "comment", func(id string) error { return s.api.DeleteComment(r.Context(), id) })
}
