package client

import (
	"context"
	"net/http"

	"github.com/okrgate/okrgate/upstream"
)

// ListWebhooks lists the webhooks of the caller's account (an admin's
// listing, GET /api/v1/webhooks), without their secrets. The client serves
// no other operation of upstream.WebhookService: a gateway answers webhook
// routes from its own store, and reading them serves a pull of an account
// (package accountpull).
func (c *Client) ListWebhooks(ctx context.Context) ([]upstream.Webhook, error) {
	var out struct {
		Items []upstream.Webhook `json:"items"`
	}
	const route = "/api/v1/webhooks"
	_, err := c.do(ctx, call{method: http.MethodGet, route: route, path: route}, &out)
	return out.Items, err
}
