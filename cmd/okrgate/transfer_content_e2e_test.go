package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/accountfile"
)

// caller is a request to a running server as a user: status and body.
type caller func(method, path string, body any) (int, []byte)

// addContent writes, through the API, one of each content type beyond the
// OKRs — a role mapped to a team, a dashboard with a parameter and a tag, a
// report, a badge assigned and approved and another pending, a KPI group
// the user keeps among favourites with a KPI in it, a saved list, an
// announcement with a reaction — and returns the listings that show them.
func addContent(t *testing.T, call caller, userID string) []string {
	t.Helper()
	id := func(method, path string, body any, want int) string {
		t.Helper()
		code, out := call(method, path, body)
		if code != want {
			t.Fatalf("%s %s: %d %s", method, path, code, out)
		}
		var v struct{ ID string }
		json.Unmarshal(out, &v)
		return v.ID
	}
	team := id("POST", "/api/v1/teams", map[string]any{"name": "Movers", "members": []string{userID}}, 201)
	role := id("POST", "/api/v1/roles/account", map[string]any{"name": "Mover", "description": "moves accounts"}, 201)
	id("POST", "/api/v1/roles/account/mapping", map[string]any{"roleId": role, "teamId": team}, 201)
	par := id("POST", "/api/v1/dashboards/parameters", map[string]any{"key": "region", "title": "Region", "predefinedValues": []string{"EMEA", "APAC"}}, 201)
	id("POST", "/api/v1/dashboards", map[string]any{"name": "Sales board", "layout": "grid", "parameterIds": []string{par},
		"tags":     []any{map[string]any{"title": "Q3"}},
		"insights": []any{map[string]any{"insightId": "6a1b2c3d4e5f6a7b8c9d0e1f", "insightName": "pipeline", "col": 0, "row": 0, "sizeX": 2, "sizeY": 1}}}, 201)
	id("POST", "/api/v1/dashboards", map[string]any{"name": "Quarterly report", "isReport": true}, 201)
	badge := id("POST", "/api/v1/badges", map[string]any{"name": "Closer", "summary": "closed a deal", "icon": "star"}, 201)
	approved := id("POST", "/api/v1/badges/assign", map[string]any{"badgeId": badge, "assigneeIds": []string{userID, team}, "comment": "well done"}, 200)
	id("POST", "/api/v1/badges/approve/"+approved, nil, 200)
	id("POST", "/api/v1/badges/assign", map[string]any{"badgeId": badge, "assigneeIds": []string{team}, "comment": "again"}, 200)
	group := id("POST", "/api/v1/kpis/groups", map[string]any{"name": "Finance"}, 201)
	id("POST", "/api/v1/kpis/groups", map[string]any{"name": "Ops"}, 201)
	id("POST", "/api/v1/kpis", map[string]any{"name": "ARR", "value": 12.5, "groupIds": []string{group}}, 201)
	id("PUT", "/api/v1/kpis/groups/"+group+"/favorite", nil, 204)
	id("POST", "/api/v1/lists", map[string]any{"title": "Big goals", "listType": "goal",
		"filter": map[string]any{"name": map[string]any{"$regex": "^win", "$options": "i"}}, "sort": "-name", "fields": "name",
		"columns": []any{map[string]any{"fieldName": "name", "type": "text", "width": 200}}}, 201)
	ann := id("POST", "/api/v1/announcements", map[string]any{"announcementType": "news", "comment": "We moved", "notificationStrategy": "email", "notify": []string{userID}}, 201)
	id("POST", "/api/v1/announcements/"+ann+"/react", map[string]any{"reactionId": "like"}, 200)
	return []string{
		"/api/v2/roles",
		"/api/v1/roles/account/mapping/",
		"/api/v1/accounts/users?includeShadowedRoles=true",
		"/api/v2/dashboards",
		"/api/v1/dashboards/parameters",
		"/api/v1/dashboards/tags/usages",
		"/api/v1/badges",
		"/api/v2/badges/assignments",
		"/api/v1/badges/current",
		"/api/v1/badges/assign/" + badge,
		"/api/v1/kpis/groups",
		"/api/v1/kpis",
		"/api/v1/lists",
		"/api/v1/announcements",
	}
}

// contentTables are the tables addContent writes to, beside teams.
var contentTables = []string{"teams", "role_mappings", "dashboard_parameters", "dashboards", "badges", "badge_assignments",
	"kpi_groups", "kpi_favorites", "kpis", "lists", "announcements"}

// exportedRows exports account from db and returns the rows of tables, each
// as its columns' values (documents decoded, booleans as numbers), keyed by
// table.
func exportedRows(t *testing.T, db, account string, tables []string) map[string][]map[string]any {
	t.Helper()
	out, err := exec.Command(binary, "export", "--db", db, "--account", account).Output()
	if err != nil {
		t.Fatalf("export %s: %v", db, err)
	}
	r, err := accountfile.NewReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]map[string]any{}
	for {
		row, err := r.Next()
		if err == io.EOF {
			return rows
		}
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(tables, row.Table) {
			continue
		}
		m := map[string]any{}
		for i, c := range r.Header().Tables[row.Table] {
			v := row.Values[i]
			if b, ok := v.(bool); ok { // PostgreSQL's booleans are SQLite's 0 and 1
				v = json.Number(map[bool]string{false: "0", true: "1"}[b])
			}
			if s, ok := v.(string); ok && strings.HasPrefix(s, "{") {
				var doc any
				if json.Unmarshal([]byte(s), &doc) == nil {
					v = doc
				}
			}
			m[c] = v
		}
		rows[row.Table] = append(rows[row.Table], m)
	}
}

// sameContent compares the content rows of a pulled account with its
// source's: the same documents, but for dashboards' creators, which the
// API does not give out.
func sameContent(t *testing.T, src, dst map[string][]map[string]any) {
	t.Helper()
	for _, d := range src["dashboards"] {
		d["created_by"] = ""
		d["doc"].(map[string]any)["createdById"] = ""
	}
	for _, table := range contentTables {
		if len(src[table]) == 0 {
			t.Errorf("the source has no rows of %s", table)
		}
		if !reflect.DeepEqual(src[table], dst[table]) {
			t.Errorf("the rows of %s differ:\nsource %v\ntarget %v", table, src[table], dst[table])
		}
	}
}
