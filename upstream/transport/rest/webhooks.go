package rest

import (
	"net/http"
	"strconv"

	"github.com/okrgate/okrgate/upstream"
)

// webhookTable holds the webhooks of the caller's account (docs/webhooks.md):
// admins only. The answers that hold a secret (creation, and an update
// that replaced it) are Secret: never recorded for Idempotency-Key.
func webhookTable() []entry {
	const (
		get, post, patch, del = http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete
		ok, created, deleted  = http.StatusOK, http.StatusCreated, http.StatusNoContent
	)
	return []entry{
		{Route{Method: get, Pattern: "/api/v1/webhooks", Success: ok, Designed: true}, (*server).listWebhooks},
		{Route{Method: post, Pattern: "/api/v1/webhooks", Success: created, Designed: true, Secret: true}, (*server).createWebhook},
		{Route{Method: get, Pattern: "/api/v1/webhooks/{id}", Success: ok, Designed: true}, (*server).getWebhook},
		{Route{Method: patch, Pattern: "/api/v1/webhooks/{id}", Success: ok, Designed: true}, (*server).updateWebhook},
		{Route{Method: del, Pattern: "/api/v1/webhooks/{id}", Success: deleted, Designed: true}, (*server).deleteWebhook},
		{Route{Method: get, Pattern: "/api/v1/webhooks/{id}/deliveries", Params: []string{"before", "limit"}, Success: ok, Designed: true}, (*server).listWebhookDeliveries},
	}
}

// webhooks returns the service of the webhook routes, Options.Webhooks; a
// server without one (a gateway, whose upstream has no event log) answers
// 404.
func (s *server) webhooks() (upstream.WebhookService, error) {
	if s.hooks != nil {
		return s.hooks, nil
	}
	return nil, upstream.Errorf(upstream.CodeNotFound, "webhooks are not served here: this server has no event log (gateway mode)")
}

// webhookAt returns the webhook service and the webhook id of r's path.
func (s *server) webhookAt(r *http.Request) (upstream.WebhookService, string, error) {
	h, err := s.webhooks()
	if err != nil {
		return nil, "", err
	}
	id, err := pathID(r, "id", "webhook")
	if err != nil {
		return nil, "", err
	}
	return h, id, nil
}

func (s *server) listWebhooks(w http.ResponseWriter, r *http.Request) (any, error) {
	h, err := s.webhooks()
	if err != nil {
		return nil, err
	}
	ws, err := h.ListWebhooks(r.Context())
	if err != nil {
		return nil, err
	}
	return itemsOf[upstream.Webhook]{Items: ws}, nil
}

func (s *server) createWebhook(w http.ResponseWriter, r *http.Request) (any, error) {
	h, err := s.webhooks()
	if err != nil {
		return nil, err
	}
	var in upstream.WebhookInput
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	out, err := h.CreateWebhook(r.Context(), in)
	if err != nil {
		return nil, err
	}
	w.Header().Set("Location", "/api/v1/webhooks/"+out.ID)
	return out, nil
}

func (s *server) getWebhook(w http.ResponseWriter, r *http.Request) (any, error) {
	h, id, err := s.webhookAt(r)
	if err != nil {
		return nil, err
	}
	return h.GetWebhook(r.Context(), id)
}

// updateWebhook answers the webhook, with its secret only when the patch
// replaced it.
func (s *server) updateWebhook(w http.ResponseWriter, r *http.Request) (any, error) {
	h, id, err := s.webhookAt(r)
	if err != nil {
		return nil, err
	}
	var p upstream.WebhookPatch
	if err := decodeBody(w, r, &p); err != nil {
		return nil, err
	}
	out, err := h.UpdateWebhook(r.Context(), id, p)
	if err != nil {
		return nil, err
	}
	return UpdatedWebhook{Webhook: out.Webhook, Secret: out.Secret}, nil
}

// UpdatedWebhook is the answer of a webhook update: the secret only when
// the patch replaced it.
type UpdatedWebhook struct {
	upstream.Webhook
	Secret string `json:"secret,omitempty"`
}

func (s *server) deleteWebhook(w http.ResponseWriter, r *http.Request) (any, error) {
	h, err := s.webhooks()
	if err != nil {
		return nil, err
	}
	return remove(r, "id", "webhook", func(id string) error { return h.DeleteWebhook(r.Context(), id) })
}

// listWebhookDeliveries lists a webhook's deliveries, newest first; before
// (an event position) pages back, limit (1..100, default 100) bounds a page.
func (s *server) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) (any, error) {
	h, id, err := s.webhookAt(r)
	if err != nil {
		return nil, err
	}
	before, err := positiveParam(r, "before", 0, 1<<62)
	if err != nil {
		return nil, err
	}
	limit, err := positiveParam(r, "limit", upstream.MaxDeliveriesPerPage, upstream.MaxDeliveriesPerPage)
	if err != nil {
		return nil, err
	}
	ds, err := h.ListWebhookDeliveries(r.Context(), id, before, int(limit))
	if err != nil {
		return nil, err
	}
	return itemsOf[upstream.WebhookDelivery]{Items: ds}, nil
}

// positiveParam reads an optional integer query parameter in 1..most.
func positiveParam(r *http.Request, name string, def, most int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > most {
		return 0, upstream.Invalid(name, "must be an integer from 1 to %d", most)
	}
	return n, nil
}
