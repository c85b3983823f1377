package resolvers

import (
	"strings"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
)

// tokenInput turns the GraphQL input into the user the token is for ("" =
// the caller) and the upstream input.
func tokenInput(in *model.CreateTokenInput) (string, upstream.TokenInput) {
	var userID string
	var out upstream.TokenInput
	if in == nil {
		return "", out
	}
	if in.UserID != nil {
		userID = *in.UserID
	}
	if in.Name != nil {
		out.Name = *in.Name
	}
	if in.ExpiresIn != nil {
		secs := int64(*in.ExpiresIn)
		out.ExpiresIn = &secs
	}
	if in.ExpiresAt != nil {
		out.ExpiresAt = *in.ExpiresAt
	}
	for _, s := range in.Scopes {
		out.Scopes = append(out.Scopes, upstream.Scope(strings.ToLower(string(s))))
	}
	return userID, out
}
