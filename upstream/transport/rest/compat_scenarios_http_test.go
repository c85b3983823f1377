package rest_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// importer sends a request as the platform's spreadsheet importer does:
// the gtmhub-accountId header, a JSON body, success only on 201.
func importer(e *env, path string, body map[string]any) (map[string]any, http.Header) {
	e.t.Helper()
	r := e.do(req{method: "POST", path: path, body: body, acct: ptr(""), rawHeader: map[string]string{"gtmhub-accountId": e.acct.AccountID}})
	if r.status != http.StatusCreated {
		e.t.Fatalf("POST %s: %d, the importer counts only 201: %s", path, r.status, r.body)
	}
	return r.json(e.t), r.header
}

// TestImporterScenario: a workbook imported as the platform's browser
// importer sends it — users, a session, objectives, key results and tasks,
// each with the platform's fields — is created (each 201), its fields are
// stored and returned, and the session then lists with its tree.
func TestImporterScenario(t *testing.T) {
	e := newEnv(t)
	u, _ := importer(e, "/api/v1/users", map[string]any{"email": "ivan@acme.test", "firstName": "Ivan", "lastName": "Petrov", "language": "bg"})
	if str(u, "language") != "bg" {
		t.Errorf("user language = %q", str(u, "language"))
	}
	owner := str(u, "id")
	ss, _ := importer(e, "/api/v1/sessions", map[string]any{"title": "Q4 2021", "access": nil, "parentId": "", "status": "open",
		"cadenceType": "MONTHLY", "cadenceStart": map[string]any{"periodOfMonth": "firstDay"}, "workflow": nil,
		"cadenceTimeZone": "Europe/Kiev", "start": "2021-09-30T21:00:00.000Z", "end": "2021-12-31T21:59:59.999Z"})
	if str(ss, "cadenceType") != "MONTHLY" || str(ss, "cadenceTimeZone") != "Europe/Kiev" {
		t.Errorf("session = %v", ss)
	}
	session := str(ss, "id")
	if got := str(e.ok(req{method: "GET", path: "/api/v1/sessions/" + session}, 200), "cadenceType"); got != "MONTHLY" {
		t.Errorf("the session read back: cadenceType %q", got)
	}
	g, h := importer(e, "/api/v1/goals", map[string]any{"ownerId": owner, "description": "From the workbook", "name": "Grow EMEA",
		"dateFrom": "2021-09-30T21:00:00Z", "dateTo": "2021-12-31T21:59:59.999Z", "sessionId": session, "customFields": map[string]any{}})
	if got := h.Get("OKR-Ignored-Fields"); got != "customFields" {
		t.Errorf("OKR-Ignored-Fields = %q, want customFields", got)
	}
	goal := str(g, "id")
	importer(e, "/api/v1/metrics", map[string]any{"ownerId": owner, "goalId": goal, "targetOperator": "at_least", "initialValue": 0, "target": 10,
		"name": "Deals", "manualType": "double", "dueDate": "0001-01-01T00:00:00Z", "softDueDate": "0001-01-01T00:00:00Z"})
	importer(e, "/api/v1/tasks", map[string]any{"name": "Call Acme", "ownerId": owner, "status": "todo", "description": "", "parentId": goal, "parentType": "goal"})

	tree := e.ok(req{method: "GET", path: "/api/v1/goals?sessionId=" + session + "&fields=name,ownerId,metrics{name,target},tasks{name,status}"}, 200)
	got, _ := json.Marshal(items(tree))
	for _, want := range []string{`"name":"Grow EMEA"`, `"ownerId":"` + owner + `"`, `"name":"Deals"`, `"target":10`, `"name":"Call Acme"`, `"status":"todo"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the imported session's tree lacks %s: %s", want, got)
		}
	}
	// A typo is refused, not ignored.
	e.problem(req{method: "POST", path: "/api/v1/sessions", body: map[string]any{"title": "x", "start": "2026-01-01", "end": "2026-02-01", "cadenceTyp": "MONTHLY"}}, 400, "invalid_input")
}

// TestMigrationScenario: a script copies users, sessions and objectives
// from one account to another by listing them through v2 and posting the
// listed documents back through v1. The read-only fields they carry (id,
// accountId, dateCreated, …, at every depth) are ignored and named in
// OKR-Ignored-Fields; only what names the first account's ids is refused.
func TestMigrationScenario(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	e.ok(req{method: "POST", path: "/api/v2/users", body: map[string]any{"email": "mia@acme.test", "firstName": "Mia", "language": "fr"}}, 201)
	e.ok(req{method: "POST", path: "/api/v2/integrations/goals/" + s.child + "/tags", body: map[string]any{"title": "Growth"}}, 201)
	to := &e.other
	post := func(path string, doc map[string]any) resp {
		t.Helper()
		return e.do(req{method: "POST", path: path, body: doc, as: to})
	}

	// Users: those the target account has (by email) are mapped to its own.
	emails := map[string]string{} // source user id → target user id
	for _, u := range items(e.ok(req{method: "GET", path: "/api/v2/users"}, 200)) {
		r := post("/api/v1/users", u)
		if r.status == http.StatusConflict {
			for _, tu := range items(e.ok(req{method: "GET", path: "/api/v1/users?limit=1000", as: to}, 200)) {
				if str(tu, "email") == str(u, "email") {
					emails[str(u, "id")] = str(tu, "id")
				}
			}
			continue
		}
		if r.status != http.StatusCreated {
			t.Fatalf("copy user %s: %d %s", str(u, "email"), r.status, r.body)
		}
		ign := r.header.Get("OKR-Ignored-Fields")
		for _, f := range []string{"id", "accountId", "dateCreated", "roles"} {
			if !slices.Contains(strings.Split(ign, ", "), f) {
				t.Errorf("copy user: OKR-Ignored-Fields %q lacks %s", ign, f)
			}
		}
		got := r.json(t)
		if str(got, "email") != str(u, "email") || str(got, "language") != str(u, "language") || str(got, "accountId") != to.AccountID {
			t.Errorf("copied user %v from %v", got, u)
		}
		emails[str(u, "id")] = str(got, "id")
	}
	if len(emails) < 2 {
		t.Fatalf("copied %d users", len(emails))
	}

	// Sessions.
	sessions := map[string]string{}
	for _, ss := range items(e.ok(req{method: "GET", path: "/api/v2/sessions"}, 200)) {
		r := post("/api/v1/sessions", ss)
		if r.status != http.StatusCreated {
			t.Fatalf("copy session %s: %d %s", str(ss, "title"), r.status, r.body)
		}
		sessions[str(ss, "id")] = str(r.json(t), "id")
	}

	// Objectives: as listed, but for the ids of the source account the
	// script maps (session, owners; the parent is posted first).
	gs := items(e.ok(req{method: "GET", path: "/api/v2/goals?sort=dateCreated&fields=" + goalCopyFields}, 200))
	if len(gs) != 2 {
		t.Fatalf("listed %d objectives", len(gs))
	}
	// Unmapped, the document names the source account's session: refused.
	if r := post("/api/v1/goals", gs[0]); r.status != http.StatusBadRequest && r.status != http.StatusNotFound {
		t.Errorf("a goal naming another account's session: %d %s", r.status, r.body)
	}
	goals := map[string]string{}
	for _, g := range gs {
		g["sessionId"] = sessions[str(g, "sessionId")]
		owner := emails[str(g, "ownerId")]
		g["ownerId"], g["ownerIds"] = owner, []string{owner}
		if p := str(g, "parentId"); p != "" {
			g["parentId"] = goals[p]
		}
		r := post("/api/v1/goals", g)
		if r.status != http.StatusCreated {
			t.Fatalf("copy goal %s: %d %s", str(g, "name"), r.status, r.body)
		}
		ign := strings.Split(r.header.Get("OKR-Ignored-Fields"), ", ")
		for _, f := range []string{"id", "accountId", "attainment", "dateCreated"} {
			if !slices.Contains(ign, f) {
				t.Errorf("copy goal: OKR-Ignored-Fields %q lacks %s", ign, f)
			}
		}
		goals[str(g, "id")] = str(r.json(t), "id")
	}
	moved := e.ok(req{method: "GET", path: "/api/v2/goals?sort=dateCreated&fields=name,parentId,tags", as: to}, 200)
	got, _ := json.Marshal(items(moved))
	if !strings.Contains(string(got), `"name":"Win EMEA"`) || !strings.Contains(string(got), `"parentId":"`+goals[s.parent]+`"`) ||
		!strings.Contains(string(got), `"title":"Growth"`) {
		t.Errorf("the moved objectives: %s", got)
	}
	if n := len(items(moved)); n != 2 {
		t.Errorf("the target account holds %d objectives", n)
	}
}

// goalCopyFields is what the migration script lists of an objective: the
// fields a create takes and the read-only ones a listing carries.
const goalCopyFields = "id,accountId,name,description,sessionId,parentId,ownerId,ownerIds,dateFrom,dateTo,attainmentTypeString," +
	"attainment,dateCreated,closedStatus,tags,assignee,assignees,metricsCount,url"
