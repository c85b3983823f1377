package rest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// webhookID creates a webhook of acct (as its admin) and returns its id.
func (e *authzEnv) webhookID() string {
	e.t.Helper()
	w, err := e.store.CreateWebhook(e.adminCtx(), upstream.WebhookInput{URL: "https://hooks.example.com/" + e.uniq(), Events: []upstream.EventType{"*"}})
	if err != nil {
		e.t.Fatal(err)
	}
	return w.ID
}

// walkWebhooks exercises the webhook routes with valid and invalid input
// (part of TestContractWalk: every answer is checked against the OpenAPI
// document).
func walkWebhooks(t *testing.T, e *env) {
	t.Helper()
	w := e.ok(req{method: "POST", path: "/api/v1/webhooks", body: map[string]any{"url": "https://hooks.example.com/okr",
		"events": []string{"checkIn.created", "goal.recomputed"}, "description": "dashboard sync"}}, 201)
	id, secret := str(w, "id"), str(w, "secret")
	if !strings.HasPrefix(secret, "whsec_") || str(w, "secretPrefix") != upstream.WebhookSecretFingerprint(secret) {
		t.Errorf("created webhook %v: secret not shown once with its prefix", w)
	}
	for _, p := range []string{"/api/v1/webhooks/" + id} {
		got := e.ok(req{method: "GET", path: p}, 200)
		if _, ok := got["secret"]; ok {
			t.Errorf("GET %s shows the secret", p)
		}
	}
	list := e.ok(req{method: "GET", path: "/api/v1/webhooks"}, 200)
	if strings.Contains(string(mustJSON(t, list)), secret) {
		t.Error("the listing shows the secret")
	}
	up := e.ok(req{method: "PATCH", path: "/api/v1/webhooks/" + id, body: map[string]any{"active": false}}, 200)
	if _, ok := up["secret"]; ok || up["active"] != false {
		t.Errorf("update %v", up)
	}
	rot := e.ok(req{method: "PATCH", path: "/api/v1/webhooks/" + id, body: map[string]any{"secret": "a-secret-of-my-own-choosing"}}, 200)
	if rot["secret"] != "a-secret-of-my-own-choosing" {
		t.Errorf("secret replaced, answer %v", rot)
	}
	e.ok(req{method: "GET", path: "/api/v1/webhooks/" + id + "/deliveries?limit=10"}, 200)

	for name, body := range map[string]map[string]any{
		"invalid url":   {"url": "not a url", "events": []string{"*"}},
		"loopback":      {"url": "http://127.0.0.1:8080/hook", "events": []string{"*"}},
		"private":       {"url": "https://192.168.1.20/hook", "events": []string{"*"}},
		"unknown event": {"url": "https://hooks.example.com/", "events": []string{"goal.exploded"}},
	} {
		p := e.problem(req{method: "POST", path: "/api/v1/webhooks", body: body}, 400, "invalid_input")
		if p != nil && !strings.Contains(string(mustJSON(t, p)), "url") && name != "unknown event" {
			t.Errorf("%s: problem does not name the url: %v", name, p)
		}
	}
	e.problem(req{method: "POST", path: "/api/v1/webhooks", body: map[string]any{"url": "https://hooks.example.com/", "events": []string{"*"}, "extra": 1}}, 400, "invalid_input")
	e.problem(req{method: "PATCH", path: "/api/v1/webhooks/" + id, body: map[string]any{"url": "http://[::1]/"}}, 400, "invalid_input")
	e.problem(req{method: "GET", path: "/api/v1/webhooks/" + id + "/deliveries?limit=0"}, 400, "invalid_input")
	e.problem(req{method: "GET", path: "/api/v1/webhooks/" + unknownID}, 404, "not_found")
	e.problem(req{method: "GET", path: "/api/v1/webhooks/" + id, as: &e.other}, 404, "not_found")
	e.problem(req{method: "GET", path: "/api/v1/webhooks/" + id + "/deliveries", as: &e.other}, 404, "not_found")
	e.problem(req{method: "DELETE", path: "/api/v1/webhooks/" + id, as: &e.other}, 404, "not_found")
	e.ok(req{method: "DELETE", path: "/api/v1/webhooks/" + id}, 204)
	e.problem(req{method: "DELETE", path: "/api/v1/webhooks/" + id}, 404, "not_found")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
