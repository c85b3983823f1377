package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The end-to-end probes of the third security review that are not about
// sign-in (signin_security_e2e_test.go has those): delegation and denies,
// federation's representations, and a server-sent-events subscription's
// account, each on the built binary over real HTTP.

// TestDelegationKeepsDeniesE2E: a member holding teams:manage and
// roles:manage whom a goal's access denies goals:read through their team
// cannot lift the deny by leaving the team or deleting it (403, and the
// goal stays unreadable), may still remove another member, and an admin
// may remove them — after which the deny no longer names them.
func TestDelegationKeepsDeniesE2E(t *testing.T) {
	db := filepath.Join(t.TempDir(), "denies.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db)
	hc := conformingClient(t)
	admin := client{t: t, hc: hc, base: srv.base, token: boot.Token, acct: boot.AccountID}

	lifter := admin.must("POST", "/api/v2/users", map[string]any{"email": "lee@acme.test", "firstName": "Lee"}, 201)["id"].(string)
	other := admin.must("POST", "/api/v2/users", map[string]any{"email": "ola@acme.test", "firstName": "Ola"}, 201)["id"].(string)
	// The token first: only a privileged user may mint their own.
	token := admin.must("POST", "/api/v2/users/"+lifter+"/tokens", map[string]any{"name": "lee"}, 201)["token"].(string)
	admin.must("PUT", "/api/v1/permissions/principal/"+lifter, map[string]any{"actions": []string{"teams:manage", "roles:manage"}}, 204)
	lee := client{t: t, hc: hc, base: srv.base, token: token, acct: boot.AccountID}

	team := admin.must("POST", "/api/v1/teams", map[string]any{"name": "Denied", "members": []string{lifter, other}}, 201)["id"].(string)
	sess := admin.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)["id"].(string)
	goal := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Secret", "sessionId": sess}, 201)["id"].(string)
	admin.must("PUT", "/api/v1/permissions/default-access/goal/"+goal, map[string]any{"inherits": true, "permissions": []map[string]any{
		{"principalId": team, "principalKind": "team", "grant": map[string]int{}, "deny": map[string]int{"goals:read": 1}}}}, 200)

	readable := func() bool {
		t.Helper()
		status, _, _ := lee.do("GET", "/api/v1/goals/"+goal, nil)
		return status == http.StatusOK
	}
	if readable() {
		t.Fatal("the denied goal is readable before any change")
	}
	for _, lift := range []struct{ what, method, path string }{
		{"leave the team", "DELETE", "/api/v1/teams/" + team + "/members/" + lifter},
		{"delete the team", "DELETE", "/api/v1/teams/" + team},
	} {
		if status, body, _ := lee.do(lift.method, lift.path, nil); status != http.StatusForbidden || !strings.Contains(body["detail"].(string), "deny") {
			t.Errorf("%s: %d %v, want 403 (lifting a deny that names the caller)", lift.what, status, body)
		}
		if readable() {
			t.Errorf("after %q the denied goal is readable", lift.what)
		}
	}
	// Controls: removing another member is not lifting one's own deny; an
	// admin may remove anyone, and then the deny no longer names Lee.
	lee.must("DELETE", "/api/v1/teams/"+team+"/members/"+other, nil, 204)
	admin.must("DELETE", "/api/v1/teams/"+team+"/members/"+lifter, nil, 204)
	if !readable() {
		t.Error("after an admin removed Lee from the denied team, the goal is still unreadable")
	}
	srv.stop(t)
}

// TestFederationRepresentationsE2E: malformed _entities representations
// (an unknown type, no id, no type) are the client's error —
// BAD_USER_INPUT, no ERROR line in the server's log — and a well-formed
// batch still answers.
func TestFederationRepresentationsE2E(t *testing.T) {
	db := filepath.Join(t.TempDir(), "federation.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db, "--federation")
	admin := client{t: t, hc: conformingClient(t), base: srv.base, token: boot.Token, acct: boot.AccountID}
	sess := admin.must("POST", "/api/v1/sessions", map[string]any{"title": "Q1", "start": "2027-01-01", "end": "2027-03-31"}, 201)["id"].(string)
	goal := admin.must("POST", "/api/v1/goals", map[string]any{"name": "Grow", "sessionId": sess}, 201)["id"].(string)

	const entities = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Goal { id name } } }`
	post := func(reps []map[string]any) (int, struct {
		Data   map[string]any
		Errors []struct {
			Message    string
			Extensions map[string]any
		}
	}) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": entities, "variables": map[string]any{"r": reps}})
		req, _ := http.NewRequest("POST", srv.base+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+boot.Token)
		req.Header.Set("service-accountId", boot.AccountID)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var out struct {
			Data   map[string]any
			Errors []struct {
				Message    string
				Extensions map[string]any
			}
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("_entities: %d %s", res.StatusCode, raw)
		}
		return res.StatusCode, out
	}
	for _, rep := range []map[string]any{
		{"__typename": "Nope", "id": "1"},
		{"__typename": "Goal"},
		{"id": "1"},
	} {
		status, out := post([]map[string]any{rep})
		if status >= 500 || len(out.Errors) == 0 || out.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
			t.Errorf("representation %v: %d %+v, want BAD_USER_INPUT", rep, status, out)
		}
	}
	if status, out := post([]map[string]any{{"__typename": "Goal", "id": goal}}); status != 200 || len(out.Errors) > 0 || !strings.Contains(mustJSON(t, out.Data), `"name":"Grow"`) {
		t.Errorf("a well-formed representation: %d %+v", status, out)
	}
	srv.stop(t)
	for _, line := range strings.Split(srv.logs.String(), "\n") {
		if strings.Contains(line, "level=ERROR") || strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("malformed representations logged at ERROR: %s", line)
		}
	}
}

// TestSignInSSEKeepsAccount: a server-sent-events subscription opened with
// an identity token in Acme keeps delivering Acme's updates after the same
// token is used over HTTP in Globex (pat is a user of both): a stream's
// account is fixed when it opens.
func TestSignInSSEKeepsAccount(t *testing.T) {
	w, srv, hc, token := patSignedIn(t)
	sess := w.admin.must("GET", "/api/v1/goals/"+w.acmeGoal, nil, 200)["sessionId"].(string)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// after: 0 replays the account's log, so no update is missed while the
	// stream opens; until reads up to the rename to name (the stream's
	// deadline fails the test if it never comes).
	next := sseNext(t, ctx, srv.base, token, liveQuery, map[string]any{"s": sess, "after": 0}, "service-accountId", w.acme.AccountID)
	until := func(name string) {
		t.Helper()
		for {
			u := next()
			if u.Data.GoalChanged.ID == w.acmeGoal && u.Data.GoalChanged.Name == name {
				return
			}
		}
	}
	w.admin.must("PATCH", "/api/v1/goals/"+w.acmeGoal, map[string]any{"name": "Before"}, 200)
	until("Before")
	if _, status := me(t, hc, srv.base, token, w.globex.AccountID); status != 200 {
		t.Fatalf("the token over HTTP in Globex: %d", status)
	}
	w.admin.must("PATCH", "/api/v1/goals/"+w.acmeGoal, map[string]any{"name": "After"}, 200)
	until("After") // before the fix the stream stopped delivering here
	cancel()
	srv.stop(t)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
