package rest_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// documentJSON is the committed document as plain JSON values.
func documentJSON(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(rest.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func obj(v any, path ...string) map[string]any {
	m, _ := v.(map[string]any)
	for _, p := range path {
		m, _ = m[p].(map[string]any)
	}
	return m
}

// schemaRequired is the sorted required list of a component schema.
func schemaRequired(t *testing.T, doc map[string]any, name string) []string {
	t.Helper()
	s := obj(doc, "components", "schemas", name)
	if s == nil {
		t.Fatalf("no schema %s", name)
	}
	var out []string
	for _, r := range s["required"].([]any) {
		out = append(out, r.(string))
	}
	slices.Sort(out)
	return out
}

var methodPathRE = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE) /`)

// TestOpenAPIDescribed: a document to generate clients from. Every
// operation has a summary (not "METHOD path") and a description, a 4xx
// answer and parameters that say what they are; every schema and every
// property is described; response schemas declare their always-present
// fields required; the info block has a license and the servers block
// servers.
func TestOpenAPIDescribed(t *testing.T) {
	doc := documentJSON(t)
	if lic := obj(doc, "info", "license"); lic["name"] == nil || (lic["identifier"] == nil && lic["url"] == nil) {
		t.Errorf("info.license = %v", lic)
	}
	if servers, _ := doc["servers"].([]any); len(servers) == 0 {
		t.Error("no servers")
	}
	ops := 0
	for path, item := range obj(doc, "paths") {
		for method, o := range item.(map[string]any) {
			op := o.(map[string]any)
			ops++
			name := strings.ToUpper(method) + " " + path
			summary, _ := op["summary"].(string)
			if summary == "" || methodPathRE.MatchString(summary) || strings.Contains(summary, "/") {
				t.Errorf("%s: summary %q", name, summary)
			}
			if d, _ := op["description"].(string); len(d) < 20 {
				t.Errorf("%s: description %q", name, d)
			}
			has4xx := false
			for st := range obj(op, "responses") {
				has4xx = has4xx || strings.HasPrefix(st, "4")
			}
			if !has4xx {
				t.Errorf("%s: no 4xx response", name)
			}
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				if d, _ := p.(map[string]any)["description"].(string); d == "" {
					t.Errorf("%s: parameter %v has no description", name, p.(map[string]any)["name"])
				}
			}
		}
	}
	props, written := 0, 0
	for name, s := range obj(doc, "components", "schemas") {
		schema := s.(map[string]any)
		if d, _ := schema["description"].(string); d == "" {
			t.Errorf("schema %s has no description", name)
		}
		for pname, p := range obj(schema, "properties") {
			props++
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", name, pname)
			}
			if upstream.HasFieldDoc(name, pname) {
				written++
			}
		}
	}
	t.Logf("%d operations; %d properties, %d with a written description, %d derived from the name", ops, props, written, props-written)

	for schema, want := range map[string][]string{
		"MetricInput":  {"goalId", "name", "target"},
		"GoalInput":    {"name", "sessionId"},
		"CheckInInput": {"actual"},
		"Problem":      {"code", "detail", "status", "title", "type"},
	} {
		if got := schemaRequired(t, doc, schema); !slices.Equal(got, want) {
			t.Errorf("%s required %v, want %v", schema, got, want)
		}
	}
	for schema, fields := range map[string][]string{
		"Goal":      {"id", "accountId", "name", "attainment", "sessionId", "ownerIds"},
		"Metric":    {"id", "goalId", "actual", "target", "attainment"},
		"CheckIn":   {"id", "metricId", "actual", "checkInDate"},
		"Page_Goal": {"items", "totalCount"},
	} {
		got := schemaRequired(t, doc, schema)
		for _, f := range fields {
			if !slices.Contains(got, f) {
				t.Errorf("%s: %s is always present but not required (required: %v)", schema, f, got)
			}
		}
	}
}

// TestOpenAPISaysWhatTheServerDoes: the groupBy filter is a deadline enum,
// default access names its item types, and the role mapping's delete id is
// the mappingId the mapping answers carry.
func TestOpenAPISaysWhatTheServerDoes(t *testing.T) {
	doc := documentJSON(t)
	param := func(path, method, name string) map[string]any {
		for _, p := range obj(doc, "paths", path, method)["parameters"].([]any) {
			if p.(map[string]any)["name"] == name {
				return p.(map[string]any)
			}
		}
		t.Fatalf("%s %s: no parameter %s", method, path, name)
		return nil
	}
	enum := func(p map[string]any) []string {
		var out []string
		for _, v := range obj(p, "schema")["enum"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	if got := enum(param("/api/v2/integrations/goals/groupBy/owners", "get", "filter")); !slices.Equal(got, []string{"current", "past", "future"}) {
		t.Errorf("groupBy filter enum = %v", got)
	}
	if got := enum(param("/api/v1/permissions/default-access/{itemType}", "get", "itemType")); !slices.Equal(got, []string{"session", "dashboard"}) {
		t.Errorf("default-access itemType enum = %v", got)
	}
	if d := param("/api/v1/roles/account/mapping/{id}", "delete", "id")["description"].(string); !strings.Contains(d, "mappingId") {
		t.Errorf("delete mapping id: %q", d)
	}
	if d := obj(doc, "components", "schemas", "Role", "properties", "mappingId")["description"].(string); !strings.Contains(d, "DELETE /api/v1/roles/account/mapping/{id}") {
		t.Errorf("Role.mappingId: %q", d)
	}
	for _, path := range []string{"/api/v1/roles/account/mapping", "/api/v1/roles/account/mapping/"} {
		for _, o := range obj(doc, "paths", path) {
			if d := o.(map[string]any)["description"].(string); !strings.Contains(d, "mappingId") {
				t.Errorf("%s: description does not name mappingId: %q", path, d)
			}
		}
	}
}
