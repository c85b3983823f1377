package sqlstore_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestWebhookCRUD checks the webhook operations: admins only, another
// account's webhook not found, bad input refused with the field named, the
// secret shown once (generated when not given) and never again.
func TestWebhookCRUD(t *testing.T) {
	e := newEnv(t)
	created, err := e.store.CreateWebhook(e.ctx, upstream.WebhookInput{URL: "https://hooks.example.com/okr",
		Events: []upstream.EventType{upstream.EventCheckInCreated, upstream.EventCheckInCreated, upstream.EventGoalRecomputed}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(created.Secret, "whsec_") || len(created.Secret) < 40 {
		t.Errorf("generated secret %q", created.Secret)
	}
	if created.SecretPrefix != upstream.WebhookSecretFingerprint(created.Secret) || !created.Active {
		t.Errorf("created %+v", created.Webhook)
	}
	if len(created.Events) != 2 {
		t.Errorf("events %v: the duplicate was kept", created.Events)
	}
	got, err := e.store.GetWebhook(e.ctx, created.ID)
	if err != nil || got.URL != created.URL || got.SecretPrefix != created.SecretPrefix {
		t.Fatalf("get: %+v, %v", got, err)
	}
	if list, err := e.store.ListWebhooks(e.ctx); err != nil || len(list) != 1 || list[0].ID != created.ID {
		t.Fatalf("list: %+v, %v", list, err)
	}

	for name, in := range map[string]upstream.WebhookInput{
		"no url":        {Events: []upstream.EventType{"*"}},
		"not http":      {URL: "ftp://example.com/", Events: []upstream.EventType{"*"}},
		"loopback":      {URL: "http://127.0.0.1:9/", Events: []upstream.EventType{"*"}},
		"private":       {URL: "https://10.1.2.3/", Events: []upstream.EventType{"*"}},
		"unknown event": {URL: "https://example.com/", Events: []upstream.EventType{"goal.exploded"}},
		"no events":     {URL: "https://example.com/"},
		"star and more": {URL: "https://example.com/", Events: []upstream.EventType{"*", upstream.EventGoalCreated}},
		"short secret":  {URL: "https://example.com/", Events: []upstream.EventType{"*"}, Secret: "short"},
	} {
		_, err := e.store.CreateWebhook(e.ctx, in)
		wantCode(t, err, upstream.CodeInvalid)
		if err != nil && t.Failed() {
			t.Logf("%s: %v", name, err)
		}
	}

	member := upstream.NewContext(context.Background(), e.user(upstream.RoleMember))
	_, err = e.store.ListWebhooks(member)
	wantCode(t, err, upstream.CodeForbidden)
	_, err = e.store.CreateWebhook(member, upstream.WebhookInput{URL: "https://example.com/", Events: []upstream.EventType{"*"}})
	wantCode(t, err, upstream.CodeForbidden)

	_, other := e.account("Other", "admin@other.test")
	_, err = e.store.GetWebhook(other, created.ID)
	wantCode(t, err, upstream.CodeNotFound)
	_, err = e.store.ListWebhookDeliveries(other, created.ID, 0, 10)
	wantCode(t, err, upstream.CodeNotFound)
	wantCode(t, e.store.DeleteWebhook(other, created.ID), upstream.CodeNotFound)

	events := []upstream.EventType{"*"}
	up, err := e.store.UpdateWebhook(e.ctx, created.ID, upstream.WebhookPatch{Events: &events})
	if err != nil || up.Secret != "" || len(up.Events) != 1 || up.Events[0] != "*" {
		t.Fatalf("update events: %+v, %v", up, err)
	}
	empty := ""
	up, err = e.store.UpdateWebhook(e.ctx, created.ID, upstream.WebhookPatch{Secret: &empty})
	if err != nil || up.Secret == "" || up.Secret == created.Secret || up.SecretPrefix != upstream.WebhookSecretFingerprint(up.Secret) || up.SecretPrefix == created.SecretPrefix {
		t.Fatalf("rotate secret: %+v, %v", up, err)
	}
	bad := "http://[::1]/"
	_, err = e.store.UpdateWebhook(e.ctx, created.ID, upstream.WebhookPatch{URL: &bad})
	wantCode(t, err, upstream.CodeInvalid)

	if err := e.store.DeleteWebhook(e.ctx, created.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.store.GetWebhook(e.ctx, created.ID)
	wantCode(t, err, upstream.CodeNotFound)
}

// TestWebhookQueue checks the delivery queue: a webhook receives the
// events appended after it was created, of its types; queuing twice
// queues nothing more; two stores on one database claiming at once never
// claim the same delivery; a recorded failure is retried when due and the
// attempts are listed.
func TestWebhookQueue(t *testing.T) {
	e := newEnv(t)
	e.session(upstream.SessionInput{Title: "before"}) // before the webhook: not delivered
	w, err := e.store.CreateWebhook(e.ctx, upstream.WebhookInput{URL: "https://hooks.example.com/okr",
		Events: []upstream.EventType{upstream.EventSessionCreated}})
	if err != nil {
		t.Fatal(err)
	}
	const sessions = 12
	for i := range sessions {
		s := e.session(upstream.SessionInput{Title: "s" + string(rune('a'+i))})
		if _, err := e.store.UpdateSession(e.ctx, s.ID, upstream.SessionPatch{Color: str("#ff0000")}); err != nil { // session.updated: not selected
			t.Fatal(err)
		}
	}
	now := time.Now()
	n, err := e.store.EnqueueWebhookDeliveries(context.Background(), now)
	if err != nil || n != sessions {
		t.Fatalf("queued %d (%v), want %d", n, err, sessions)
	}
	if n, err := e.store.EnqueueWebhookDeliveries(context.Background(), now); err != nil || n != 0 {
		t.Fatalf("queued again %d (%v)", n, err)
	}

	second, err := sqlstore.Open(context.Background(), e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	var mu sync.Mutex
	claimed := map[string]int{}
	var wg sync.WaitGroup
	for _, st := range []*sqlstore.Store{e.store, second, e.store, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			jobs, err := st.ClaimWebhookDeliveries(context.Background(), now, time.Minute, 5)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, j := range jobs {
				claimed[j.ID]++
				if j.Attempt != 1 || j.Type != upstream.EventSessionCreated || j.Secret == "" || j.Event.ItemID == "" {
					t.Errorf("job %+v", j)
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for id, c := range claimed {
		if c != 1 {
			t.Errorf("delivery %s claimed %d times", id, c)
		}
		total += c
	}
	if total != sessions {
		t.Errorf("claimed %d deliveries, want %d (four claims of five)", total, sessions)
	}
	if jobs, _ := e.store.ClaimWebhookDeliveries(context.Background(), now, time.Minute, 50); len(jobs) != 0 {
		t.Errorf("leased deliveries claimed again: %d", len(jobs))
	}

	// Fail one, succeed the others; the failed one is due again at its next attempt.
	var failed string
	for id := range claimed {
		if failed == "" {
			failed = id
			next := now.Add(time.Second)
			err = e.store.RecordWebhookAttempt(context.Background(), e.boot.AccountID, id, upstream.WebhookAttempt{Attempt: 1, At: upstream.FormatTime(now),
				StatusCode: 500, Error: "the receiver answered 500", NextAttemptAt: upstream.FormatTime(next)}, upstream.DeliveryPending)
		} else {
			err = e.store.RecordWebhookAttempt(context.Background(), e.boot.AccountID, id, upstream.WebhookAttempt{Attempt: 1, At: upstream.FormatTime(now), StatusCode: 204}, upstream.DeliverySucceeded)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if d, _ := e.store.WebhookQueueDepth(context.Background()); d != 1 {
		t.Errorf("queue depth %d, want 1", d)
	}
	if jobs, _ := e.store.ClaimWebhookDeliveries(context.Background(), now, time.Minute, 50); len(jobs) != 0 {
		t.Errorf("a delivery was claimed before its next attempt: %d", len(jobs))
	}
	jobs, err := e.store.ClaimWebhookDeliveries(context.Background(), now.Add(2*time.Second), time.Minute, 50)
	if err != nil || len(jobs) != 1 || jobs[0].ID != failed || jobs[0].Attempt != 2 {
		t.Fatalf("retry claim: %+v, %v", jobs, err)
	}
	ds, err := e.store.ListWebhookDeliveries(e.ctx, w.ID, 0, 100)
	if err != nil || len(ds) != sessions {
		t.Fatalf("deliveries: %d, %v", len(ds), err)
	}
	for _, d := range ds {
		switch {
		case d.ID == failed && (d.Status != upstream.DeliveryPending || len(d.Attempts) != 1 || d.Attempts[0].StatusCode != 500 || d.NextAttemptAt == ""):
			t.Errorf("failed delivery %+v", d)
		case d.ID != failed && (d.Status != upstream.DeliverySucceeded || len(d.Attempts) != 1 || d.CompletedAt == ""):
			t.Errorf("delivery %+v", d)
		}
	}
	for i := 1; i < len(ds); i++ {
		if ds[i].Position >= ds[i-1].Position {
			t.Errorf("deliveries not newest first: %d then %d", ds[i-1].Position, ds[i].Position)
		}
	}
	if page, _ := e.store.ListWebhookDeliveries(e.ctx, w.ID, ds[2].Position, 2); len(page) != 2 || page[0].Position != ds[3].Position {
		t.Errorf("page before %d: %+v", ds[2].Position, page)
	}
}
