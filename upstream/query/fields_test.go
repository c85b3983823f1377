package query

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseFields(t *testing.T) {
	tests := []struct {
		src  string
		want string // JSON of the projection, or "error: <substring>"
	}{
		{"", "null"},
		{"  ", "null"},
		{"name", `{"name":null}`},
		{"id,name,attainment", `{"attainment":null,"id":null,"name":null}`},
		{"_id", `{"id":null}`},
		{" name , priority ", `{"name":null,"priority":null}`},
		{"description", `{"description":null}`}, // projection needs neither filterable nor sortable
		{"metrics", `{"metrics":null}`},
		{"metrics{id,name}", `{"metrics":{"id":null,"name":null}}`},
		{"metrics { name } , name", `{"metrics":{"name":null},"name":null}`},
		{"metrics{checkins{value}}", `{"metrics":{"checkins":{"value":null}}}`},
		{"metrics{goal{metrics{name}}}", `{"metrics":{"goal":{"metrics":{"name":null}}}}`},
		{"metrics{name},metrics{target}", `{"metrics":{"name":null,"target":null}}`},
		{"metrics{name},metrics", `{"metrics":null}`},
		{"metrics,metrics{name}", `{"metrics":null}`},
		{"closedStatus.status", `{"closedStatus":{"status":null}}`},
		{"closedStatus", `{"closedStatus":null}`},
		{"closedStatus,closedStatus.status", `{"closedStatus":null}`},
		{"nmae", `error: unknown field "nmae"`},
		{"metrics{nmae}", `error: unknown field "nmae"`},
		{"metrics{checkins{nope}}", `error: unknown field "nope"`},
		{"name{id}", `error: field "name" has no sub-fields`},
		{"closedStatus{status}", `error: has no sub-fields`},
		{"metrics{}", `error: want a field name`},
		{"metrics{name", `error: missing '}'`},
		{"name}", `error: unexpected '}'`},
		{"name,,id", `error: want a field name`},
		{"name,", `error: want a field name`},
		{",name", `error: want a field name`},
		{"name id", `error: want ','`},
		{"name-x", `error: want ','`},
		{"name;drop", `error: want ','`},
		{strings.Repeat("metrics{goal{", 6) + "name" + strings.Repeat("}}", 6), `error: nested deeper than 10`},
		{strings.Repeat("name,", 1000), `error: longer than 4096 bytes`},
	}
	for _, tt := range tests {
		p, err := ParseFields(testReg, tt.src)
		if msg, ok := strings.CutPrefix(tt.want, "error: "); ok {
			var qe *Error
			if !errors.As(err, &qe) || qe.Param != "fields" || !strings.Contains(qe.Message, msg) {
				t.Errorf("ParseFields(%.60q) error = %v, want *Error{Param: fields} containing %q", tt.src, err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseFields(%q): %v", tt.src, err)
			continue
		}
		got, _ := json.Marshal(p)
		if string(got) != tt.want {
			t.Errorf("ParseFields(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestProjectionHas(t *testing.T) {
	p, err := ParseFields(testReg, "name,metrics{name},closedStatus.status")
	if err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]bool{
		"name": true, "id": true, "_id": true, "accountId": true, "metrics": true, "metrics.name": true,
		"metrics.target": false, "closedStatus": true, "closedStatus.status": true, "closedStatus.other": false,
		"attainment": false, "ownerIds": false,
	} {
		if got := p.Has(field); got != want {
			t.Errorf("Has(%q) = %v, want %v", field, got, want)
		}
	}
	var all Projection
	if !all.Has("anything") || !all.Has("metrics.name") {
		t.Error("nil Projection does not have every field")
	}
}

func TestProjectionApply(t *testing.T) {
	doc := func() map[string]any {
		var m map[string]any
		err := json.Unmarshal([]byte(`{
			"id": "g1", "accountId": "a1", "name": "Goal", "attainment": 0.5, "ownerIds": ["u1"],
			"closedStatus": {"status": "active", "closedAt": null},
			"metrics": [
				{"id": "m1", "accountId": "a1", "name": "M1", "target": 10, "checkins": [{"id": "c1", "value": 1, "note": "x"}]},
				{"id": "m2", "accountId": "a1", "name": "M2", "target": 20, "checkins": []},
				"not an object"
			],
			"owner": {"id": "u1", "name": "Ann"}
		}`), &m)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	tests := []struct {
		fields, want string
	}{
		{"", `{"accountId":"a1","attainment":0.5,"closedStatus":{"closedAt":null,"status":"active"},"id":"g1","metrics":[{"accountId":"a1","checkins":[{"id":"c1","note":"x","value":1}],"id":"m1","name":"M1","target":10},{"accountId":"a1","checkins":[],"id":"m2","name":"M2","target":20},"not an object"],"name":"Goal","owner":{"id":"u1","name":"Ann"},"ownerIds":["u1"]}`},
		{"name", `{"accountId":"a1","id":"g1","name":"Goal"}`},
		{"attainment,ownerIds", `{"accountId":"a1","attainment":0.5,"id":"g1","ownerIds":["u1"]}`},
		{"priority", `{"accountId":"a1","id":"g1"}`}, // absent keys stay absent
		{"closedStatus.status", `{"accountId":"a1","closedStatus":{"status":"active"},"id":"g1"}`},
		{"closedStatus", `{"accountId":"a1","closedStatus":{"closedAt":null,"status":"active"},"id":"g1"}`},
		{"metrics{name}", `{"accountId":"a1","id":"g1","metrics":[{"accountId":"a1","id":"m1","name":"M1"},{"accountId":"a1","id":"m2","name":"M2"},"not an object"]}`},
		{"metrics{checkins{value}}", `{"accountId":"a1","id":"g1","metrics":[{"accountId":"a1","checkins":[{"id":"c1","value":1}],"id":"m1"},{"accountId":"a1","checkins":[],"id":"m2"},"not an object"]}`},
	}
	for _, tt := range tests {
		p, err := ParseFields(testReg, tt.fields)
		if err != nil {
			t.Fatalf("ParseFields(%q): %v", tt.fields, err)
		}
		d := doc()
		before, _ := json.Marshal(d)
		got, _ := json.Marshal(p.Apply(d))
		if string(got) != tt.want {
			t.Errorf("fields %q:\n got %s\nwant %s", tt.fields, got, tt.want)
		}
		if after, _ := json.Marshal(d); string(after) != string(before) {
			t.Errorf("fields %q: Apply modified its input", tt.fields)
		}
	}
	if got := (Projection{"name": nil}).Apply(nil); got != nil {
		t.Errorf("Apply(nil) = %v", got)
	}
}

func TestParseFieldsIgnoring(t *testing.T) {
	tests := []struct {
		src, want string // want: JSON of the projection, or "error: <substring>"
		ignored   []string
	}{
		{"id,displayName,name", `{"id":null,"name":null}`, []string{"displayName"}},
		{"displayName", `{}`, []string{"displayName"}},
		{"metrics{nmae,name},nope{a{b},c}", `{"metrics":{"name":null}}`, []string{"metrics.nmae", "nope"}},
		{"closedStatus.nope,closedStatus.status", `{"closedStatus":{"status":null}}`, []string{"closedStatus.nope"}},
		{"name", `{"name":null}`, nil},
		{"name{id}", `error: field "name" has no sub-fields`, nil},
		{"nope{", `error: want a field name`, nil},
		{"nope{a", `error: missing '}'`, nil},
		{"name id", `error: want ','`, nil},
	}
	for _, tt := range tests {
		p, ignored, err := ParseFieldsIgnoring(testReg, tt.src)
		if msg, ok := strings.CutPrefix(tt.want, "error: "); ok {
			var qe *Error
			if !errors.As(err, &qe) || qe.Param != "fields" || !strings.Contains(qe.Message, msg) {
				t.Errorf("ParseFieldsIgnoring(%q) error = %v, want *Error{Param: fields} containing %q", tt.src, err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseFieldsIgnoring(%q): %v", tt.src, err)
			continue
		}
		got, _ := json.Marshal(p)
		if string(got) != tt.want || strings.Join(ignored, ",") != strings.Join(tt.ignored, ",") {
			t.Errorf("ParseFieldsIgnoring(%q) = %s, ignored %q; want %s, ignored %q", tt.src, got, ignored, tt.want, tt.ignored)
		}
	}
}
