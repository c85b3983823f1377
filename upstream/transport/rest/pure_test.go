package rest_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

func TestPlainText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"no mentions here", "no mentions here"},
		{"@[Ann:ann@x.io:5f1a2b3c4d5e6f7a8b9c0d1e]", "@Ann"},
		{"hi @[Ann Lee:ann@x.io:5f1a2b3c4d5e6f7a8b9c0d1e], see", "hi @Ann Lee, see"},
		{"@[A:a@x.io:1] and @[B C D:b@y.org:2]!", "@A and @B C D!"},
		{"name with colon @[Dr: Who:who@x.io:abc]", "name with colon @Dr: Who"},
		{"unicode @[Zoë Ångström:z@x.io:id_1-2]", "unicode @Zoë Ångström"},
		// Malformed markup stays as it is.
		{"@[Ann:ann@x.io:5f1a", "@[Ann:ann@x.io:5f1a"},
		{"@[Ann:5f1a]", "@[Ann:5f1a]"},
		{"@[:ann@x.io:5f1a]", "@[:ann@x.io:5f1a]"},
		{"@[ :ann@x.io:5f1a]", "@[ :ann@x.io:5f1a]"},
		{"@[Ann:not-an-email:5f1a]", "@[Ann:not-an-email:5f1a]"},
		{"@[Ann:ann@x.io:]", "@[Ann:ann@x.io:]"},
		{"@[Ann:ann@x.io:bad id]", "@[Ann:ann@x.io:bad id]"},
		{"@[]", "@[]"},
		{"@ [Ann:ann@x.io:1]", "@ [Ann:ann@x.io:1]"},
		{"[Ann:ann@x.io:1]", "[Ann:ann@x.io:1]"},
		{"@[Ann\n:ann@x.io:1]", "@[Ann\n:ann@x.io:1]"},
		// A mention right after a broken one is still found.
		{"@[broken @[Ann:ann@x.io:1]", "@[broken @Ann"},
		{"@@[Ann:ann@x.io:1]", "@@Ann"},
		{"email me@x.io, @[Bob:bob@x.io:42].", "email me@x.io, @Bob."},
	}
	for _, tt := range tests {
		if got := rest.PlainText(tt.in); got != tt.want {
			t.Errorf("PlainText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzPlainText(f *testing.F) {
	for _, s := range []string{"@[Ann:ann@x.io:1]", "@[x", "a@[b:c@d:e]f", "@[[:@:]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := rest.PlainText(s)
		if !strings.Contains(s, "@[") && got != s {
			t.Fatalf("PlainText changed text without markup: %q → %q", s, got)
		}
		if len(got) > len(s) {
			t.Fatalf("PlainText grew the text: %q → %q", s, got)
		}
		if again := rest.PlainText(got); strings.Count(again, "@[") > strings.Count(got, "@[") {
			t.Fatalf("PlainText not stable: %q → %q → %q", s, got, again)
		}
	})
}

func TestParseComparison(t *testing.T) {
	tests := []struct {
		in   string
		want upstream.Comparison
		bad  bool
	}{
		{in: ">0.5", want: upstream.Comparison{Op: ">", Value: 0.5}},
		{in: ">=0.5", want: upstream.Comparison{Op: ">=", Value: 0.5}},
		{in: "<0.3", want: upstream.Comparison{Op: "<", Value: 0.3}},
		{in: "<=0.3", want: upstream.Comparison{Op: "<=", Value: 0.3}},
		{in: "0.5", want: upstream.Comparison{Op: "=", Value: 0.5}},
		{in: "=1", want: upstream.Comparison{Op: "=", Value: 1}},
		{in: "==1", want: upstream.Comparison{Op: "=", Value: 1}},
		{in: " > 0.25 ", want: upstream.Comparison{Op: ">", Value: 0.25}},
		{in: "<-1", want: upstream.Comparison{Op: "<", Value: -1}},
		{in: "", bad: true},
		{in: ">", bad: true},
		{in: "abc", bad: true},
		{in: "><1", bad: true},
		{in: "!=1", bad: true},
		{in: ">NaN", bad: true},
		{in: "Inf", bad: true},
		{in: "0.5x", bad: true},
	}
	for _, tt := range tests {
		got, err := rest.ParseComparison("confidence", tt.in)
		if tt.bad {
			if upstream.ErrorCode(err) != upstream.CodeInvalid {
				t.Errorf("ParseComparison(%q) = %v, %v; want invalid_input", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseComparison(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseSkipLimit(t *testing.T) {
	for _, tt := range []struct {
		q         string
		skip, lim int
		bad       string // param named in the error
	}{
		{q: "", skip: 0, lim: upstream.DefaultLimit},
		{q: "skip=5&limit=10", skip: 5, lim: 10},
		{q: "limit=1000", lim: 1000},
		{q: "limit=1", lim: 1},
		{q: "limit=5000", bad: "limit"},
		{q: "limit=0", bad: "limit"},
		{q: "limit=-1", bad: "limit"},
		{q: "limit=abc", bad: "limit"},
		{q: "limit=1.5", bad: "limit"},
		{q: "limit=", bad: "limit"},
		{q: "skip=-1", bad: "skip"},
		{q: "skip=x", bad: "skip"},
	} {
		v, _ := url.ParseQuery(tt.q)
		skip, err1 := rest.ParseSkip(v, "skip")
		lim, err2 := rest.ParseLimit(v, "limit")
		if tt.bad != "" {
			err := errors.Join(err1, err2)
			var ue *upstream.Error
			if !errors.As(err, &ue) || ue.Code != upstream.CodeInvalid || len(ue.Fields) == 0 || ue.Fields[0].Field != tt.bad {
				t.Errorf("%q: err = %v, want invalid_input naming %s", tt.q, err, tt.bad)
			}
			continue
		}
		if err1 != nil || err2 != nil || skip != tt.skip || lim != tt.lim {
			t.Errorf("%q: skip, limit = %d, %d (%v, %v); want %d, %d", tt.q, skip, lim, err1, err2, tt.skip, tt.lim)
		}
	}
}

func TestParseBool(t *testing.T) {
	v, _ := url.ParseQuery("a=true&b=0&c=yes")
	if b, err := rest.ParseBool(v, "a"); !b || err != nil {
		t.Errorf("a: %v, %v", b, err)
	}
	if b, err := rest.ParseBool(v, "b"); b || err != nil {
		t.Errorf("b: %v, %v", b, err)
	}
	if _, err := rest.ParseBool(v, "c"); upstream.ErrorCode(err) != upstream.CodeInvalid {
		t.Errorf("c: %v, want invalid_input", err)
	}
	if b, err := rest.ParseBool(v, "missing"); b || err != nil {
		t.Errorf("missing: %v, %v", b, err)
	}
}

func TestCommaList(t *testing.T) {
	if got := rest.CommaList(" a, b ,,c ,"); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("CommaList = %q", got)
	}
	if got := rest.CommaList(""); got != nil {
		t.Errorf("CommaList(\"\") = %q, want nil", got)
	}
}

func TestParseGroupByOwners(t *testing.T) {
	id1, id2 := "5f1a2b3c4d5e6f7a8b9c0d1e", "5f1a2b3c4d5e6f7a8b9c0d1f"
	v, _ := url.ParseQuery("filter=current&ids=" + id1 + "," + id2 + "&ownerIds=" + id1 +
		"&metricOwnerId=" + id2 + "&confidence=%3E0.5&attainment=%3C%3D0.3&metricAttainment=0.5" +
		"&metricBefore=2026-02-01&metricAfter=2026-01-01&sort=-attainment,name&includeMetrics=true&skip=2&take=7")
	got, err := rest.ParseGroupByOwners(v)
	if err != nil {
		t.Fatal(err)
	}
	want := upstream.GroupByOwnersQuery{
		Deadline:         "current",
		IDs:              []string{id1, id2},
		OwnerIDs:         []string{id1},
		MetricOwnerIDs:   []string{id2},
		Confidence:       &upstream.Comparison{Op: ">", Value: 0.5},
		Attainment:       &upstream.Comparison{Op: "<=", Value: 0.3},
		MetricAttainment: &upstream.Comparison{Op: "=", Value: 0.5},
		MetricBefore:     "2026-02-01",
		MetricAfter:      "2026-01-01",
		IncludeMetrics:   true,
		Skip:             2,
		Take:             7,
	}
	want.Sort.Sort, _ = query.ParseSort(upstream.GoalFields, "-attainment,name")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseGroupByOwners =\n%+v\nwant\n%+v", got, want)
	}

	empty, err := rest.ParseGroupByOwners(url.Values{})
	if err != nil || empty.Take != upstream.DefaultLimit || empty.Deadline != "" {
		t.Errorf("defaults: %+v, %v", empty, err)
	}

	for _, q := range []string{
		"filter=someday", "ids=nothex", "ownerIds=" + id1 + ",x", "confidence=high", "metricBefore=2026-13-01",
		"metricAfter=01/02/2026", "includeMetrics=maybe", "take=1001", "take=0", "skip=-3",
	} {
		v, _ := url.ParseQuery(q)
		if _, err := rest.ParseGroupByOwners(v); upstream.ErrorCode(err) != upstream.CodeInvalid {
			t.Errorf("%s: err = %v, want invalid_input", q, err)
		}
	}
	v, _ = url.ParseQuery("sort=nosuchfield")
	var qe *query.Error
	if _, err := rest.ParseGroupByOwners(v); !errors.As(err, &qe) || qe.Param != "sort" {
		t.Errorf("sort=nosuchfield: err = %v, want *query.Error for sort", err)
	}
}

func TestProblemOf(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   upstream.Code
		detail string
	}{
		{upstream.Invalid("name", "is required"), 400, upstream.CodeInvalid, "name: is required"},
		{upstream.Errorf(upstream.CodeInvalidFilter, "bad"), 400, upstream.CodeInvalidFilter, "bad"},
		{upstream.Errorf(upstream.CodeUnknownParam, "x"), 400, upstream.CodeUnknownParam, "x"},
		{upstream.Errorf(upstream.CodeLimitExceeded, "x"), 400, upstream.CodeLimitExceeded, "x"},
		{upstream.Errorf(upstream.CodeAccountHeader, "x"), 400, upstream.CodeAccountHeader, "x"},
		{upstream.Errorf(upstream.CodeUnauthenticated, "x"), 401, upstream.CodeUnauthenticated, "x"},
		{upstream.Errorf(upstream.CodePaymentRequired, "x"), 402, upstream.CodePaymentRequired, "x"},
		{upstream.Errorf(upstream.CodeForbidden, "x"), 403, upstream.CodeForbidden, "x"},
		{upstream.Errorf(upstream.CodeSessionLocked, "x"), 403, upstream.CodeSessionLocked, "x"},
		{upstream.Errorf(upstream.CodeSessionClosed, "x"), 403, upstream.CodeSessionClosed, "x"},
		{upstream.Errorf(upstream.CodeGoalAbandoned, "x"), 403, upstream.CodeGoalAbandoned, "x"},
		{upstream.NotFound("goal", "1"), 404, upstream.CodeNotFound, `goal "1" not found`},
		{upstream.Errorf(upstream.CodeConflict, "x"), 409, upstream.CodeConflict, "x"},
		{upstream.Errorf(upstream.CodeNotModified, "x"), 304, upstream.CodeNotModified, "x"},
		// Internal errors never leak their text.
		{upstream.Errorf(upstream.CodeInternal, "SELECT secret"), 500, upstream.CodeInternal, "internal error"},
		{upstream.Errorf("made_up", "SELECT secret"), 500, upstream.CodeInternal, "internal error"},
		{errors.New("sql: no such table: goals"), 500, upstream.CodeInternal, "internal error"},
		{fmt.Errorf("wrapped: %w", upstream.NotFound("task", "2")), 404, upstream.CodeNotFound, `task "2" not found`},
	}
	for _, tt := range tests {
		status, code, detail, _ := rest.ProblemOf(tt.err)
		if status != tt.status || code != tt.code || detail != tt.detail {
			t.Errorf("ProblemOf(%v) = %d %s %q; want %d %s %q", tt.err, status, code, detail, tt.status, tt.code, tt.detail)
		}
	}

	_, err := query.ParseFilter(upstream.GoalFields, `{"nosuch":1}`)
	status, code, detail, fields := rest.ProblemOf(err)
	if status != 400 || code != upstream.CodeInvalidFilter || len(fields) != 1 || fields[0].Field != "filter" ||
		!strings.Contains(detail, "nosuch") {
		t.Errorf("ProblemOf(query error) = %d %s %q %v", status, code, detail, fields)
	}
}

func TestDecodeJSON(t *testing.T) {
	type inner struct {
		Status string `json:"status"`
	}
	type body struct {
		Name   string   `json:"name"`
		Actual *float64 `json:"actual"`
		Tags   []string `json:"tags"`
		Inner  *inner   `json:"inner"`
	}
	var ok body
	if err := rest.DecodeJSON([]byte(` {"name":"x","actual":1.5,"inner":{"status":"a"}} `), &ok); err != nil || ok.Name != "x" || *ok.Actual != 1.5 {
		t.Fatalf("valid body: %+v, %v", ok, err)
	}
	for _, tt := range []struct {
		body, field, msg string
	}{
		{body: ``, msg: "required"},
		{body: `   `, msg: "required"},
		{body: `null`, msg: "JSON object"},
		{body: `[1]`, msg: "JSON object"},
		{body: `"x"`, msg: "JSON object"},
		{body: `{"name":`, msg: "not valid JSON"},
		{body: `{"name":"x",}`, msg: "not valid JSON"},
		{body: `{"name":"x"} {"name":"y"}`, msg: "after"},
		{body: `{"name":"x"}garbage`, msg: "after"},
		{body: `{"nmae":"x"}`, field: "nmae"},
		{body: `{"name":1}`, field: "name", msg: "string"},
		{body: `{"actual":"50"}`, field: "actual", msg: "number"},
		{body: `{"tags":"a"}`, field: "tags", msg: "array"},
		{body: `{"inner":{"status":true}}`, field: "inner.status", msg: "string"},
		{body: `{"inner":{"bogus":1}}`, field: "bogus"},
	} {
		var b body
		err := rest.DecodeJSON([]byte(tt.body), &b)
		var ue *upstream.Error
		if !errors.As(err, &ue) || ue.Code != upstream.CodeInvalid {
			t.Errorf("%q: err = %v, want invalid_input", tt.body, err)
			continue
		}
		if tt.field != "" && (len(ue.Fields) != 1 || ue.Fields[0].Field != tt.field) {
			t.Errorf("%q: fields = %v, want %s", tt.body, ue.Fields, tt.field)
		}
		if !strings.Contains(ue.Message, tt.msg) {
			t.Errorf("%q: message %q does not say %q", tt.body, ue.Message, tt.msg)
		}
	}
}

// contractSuccess lists the routes whose success code the contract states
// against the designed convention (POST 201, PATCH 200): the contract wins.
var contractSuccess = map[string]int{
	"POST /api/v1/accounts/domain":               200, // an availability check creates nothing
	"POST /api/v1/tags":                          200,
	"POST /api/v1/tags/activate":                 200,
	"POST /api/v1/tags/deactivate":               200,
	"POST /api/v1/dashboards/{dashboardId}/tags": 200,
	"POST /api/v1/badges/approve/{id}":           200,
	"POST /api/v1/badges/assign":                 200,
	"PATCH /api/v1/badges/{id}":                  204,
	"POST /api/v1/announcements/{id}/react":      200,
	"POST /api/v1/lists/{id}/load":               200,
	// The real platform's uploader counts only 200 as done (avatars.go).
	"POST /api/v1/fileserver/avatar/{userId}": 200,
}

func TestRoutesTable(t *testing.T) {
	routes := rest.Routes()
	if len(routes) == 0 {
		t.Fatal("no routes")
	}
	seen := map[string]bool{}
	for _, r := range routes {
		key := r.Method + " " + r.Pattern
		if seen[key] {
			t.Errorf("duplicate route %s", key)
		}
		seen[key] = true
		if !strings.HasPrefix(r.Pattern, "/api/v1/") && !strings.HasPrefix(r.Pattern, "/api/v2/") {
			t.Errorf("%s: not under /api/v1 or /api/v2", key)
		}
		// Deprecated routes name their successor, except the announcements,
		// whose feature the contract retires without one.
		retired := strings.HasPrefix(r.Pattern, "/api/v1/announcements")
		if r.Successor != "" && !r.Deprecated || r.Deprecated && r.Successor == "" && !retired {
			t.Errorf("%s: Deprecated=%v but Successor=%q", key, r.Deprecated, r.Successor)
		}
		want := map[string]int{http.MethodGet: 200, http.MethodPatch: 200, http.MethodPost: 201, http.MethodDelete: 204}[r.Method]
		if code, ok := contractSuccess[key]; ok {
			want = code
		}
		if r.Method == http.MethodPut && (r.Success == 200 || r.Success == 204) {
			want = r.Success // a PUT answers the resource (200) or nothing (204)
		}
		if r.Success != want {
			t.Errorf("%s: success %d, want %d", key, r.Success, want)
		}
		for _, p := range r.Params {
			if p == "" || strings.ContainsAny(p, " &=") {
				t.Errorf("%s: bad param name %q", key, p)
			}
		}
	}
	// Routes returns copies: changing them does not change the router's table.
	routes[0].Params[0] = "changed"
	if rest.Routes()[0].Params[0] == "changed" {
		t.Error("Routes shares its Params slices")
	}
}

// FuzzDecodeJSON: any body decodes or fails with a client error, never a
// panic or an internal error.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"name":"x","sessionId":"a"}`, `{"closedStatus":{"status":1}}`, `{`, `[]`, `{"tags":[{"title":2}]}`, `{"orderId":1e400}`,
		`{"name":"a","name":"b"}`, `{"name":"a","Name":"b"}`, `{"name":"\u0000"}`, "{\"name\":\"\xff\"}", `{"name":"\ud800\udc00"}`, `{"name":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var in upstream.GoalInput
		err := rest.DecodeJSON(b, &in)
		if err != nil && upstream.ErrorCode(err) != upstream.CodeInvalid {
			t.Fatalf("DecodeJSON(%q) = %v, want nil or invalid_input", b, err)
		}
		if err != nil {
			return
		}
		// What is accepted is what was sent: no byte was repaired and no
		// NUL slipped through.
		if !utf8.Valid(b) {
			t.Fatalf("DecodeJSON accepted invalid UTF-8: %q", b)
		}
		for _, s := range append([]string{in.Name, in.Description, in.RichTextDescription, in.SessionID, in.ParentID}, in.OwnerIDs...) {
			if strings.ContainsRune(s, 0) {
				t.Fatalf("DecodeJSON accepted a NUL: %q", b)
			}
		}
	})
}
