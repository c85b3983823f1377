package resolvers

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
)

// The token operations of the instrumented wrapper (instrument.go).

func (i *instrumented) IssueToken(ctx context.Context, userID string, in upstream.TokenInput) (upstream.NewToken, error) {
	i.c.inc("IssueToken")
	return i.API.IssueToken(ctx, userID, in)
}

func (i *instrumented) ListTokens(ctx context.Context) ([]upstream.Token, error) {
	i.c.inc("ListTokens")
	return i.API.ListTokens(ctx)
}

func (i *instrumented) RevokeToken(ctx context.Context, id string) error {
	i.c.inc("RevokeToken")
	return i.API.RevokeToken(ctx, id)
}
