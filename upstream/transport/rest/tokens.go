package rest

import (
	"net/http"

	"github.com/okrgate/okrgate/upstream"
)

// tokenTable holds the caller's own API tokens: list, create, revoke
// (docs/rest.md, "API tokens"). A token for another user is created at
// POST /api/v2/users/{id}/tokens (orgTable).
func tokenTable() []entry {
	const (
		get, post, del       = http.MethodGet, http.MethodPost, http.MethodDelete
		ok, created, deleted = http.StatusOK, http.StatusCreated, http.StatusNoContent
	)
	return []entry{
		{Route{Method: get, Pattern: "/api/v2/users/me/tokens", Success: ok, Designed: true}, (*server).listTokens},
		{Route{Method: post, Pattern: "/api/v2/users/me/tokens", Success: created, Designed: true, Secret: true}, (*server).createMyToken},
		{Route{Method: del, Pattern: "/api/v2/users/me/tokens/{tokenId}", Operation: "RevokeToken", Success: deleted, Designed: true}, (*server).revokeToken},
	}
}

// tokenInput reads the optional body of a token creation: no body asks for
// the defaults.
func tokenInput(w http.ResponseWriter, r *http.Request) (upstream.TokenInput, error) {
	var in upstream.TokenInput
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		if err := decodeBody(w, r, &in); err != nil {
			return in, err
		}
	}
	return in, nil
}

func (s *server) listTokens(w http.ResponseWriter, r *http.Request) (any, error) {
	ts, err := s.api.ListTokens(r.Context())
	if err != nil {
		return nil, err
	}
	return itemsOf[upstream.Token]{Items: ts}, nil
}

func (s *server) createMyToken(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.issueToken(w, r, "")
}

// issueToken creates a token for userID ("" = the caller) from the request
// body; the answer is the only place its secret appears.
func (s *server) issueToken(w http.ResponseWriter, r *http.Request, userID string) (any, error) {
	in, err := tokenInput(w, r)
	if err != nil {
		return nil, err
	}
	t, err := s.api.IssueToken(r.Context(), userID, in)
	if err != nil {
		return nil, err
	}
	w.Header().Set("Cache-Control", "no-store")
	return t, nil
}

func (s *server) revokeToken(w http.ResponseWriter, r *http.Request) (any, error) {
	return remove(r, "tokenId", "token", func(id string) error { return s.api.RevokeToken(r.Context(), id) })
}
