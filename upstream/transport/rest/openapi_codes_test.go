package rest

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestProblemDocsFollowTheErrorTable: the OpenAPI document's error answers
// (problemResponses) restate the error table (upstream.Codes) in their
// descriptions and examples, per status. Every code a description names,
// and the code of every example, must have that status in the table, and
// every status described must be one the table gives some code, so that a
// code moved to another status, or renamed, in the table cannot leave the
// document saying otherwise.
func TestProblemDocsFollowTheErrorTable(t *testing.T) {
	status := map[upstream.Code]int{}
	for _, row := range upstream.Codes() {
		status[row.Code] = row.Status
	}
	responses := problemResponses()
	seen := 0
	for st := 400; st < 600; st++ {
		if _, ok := responses[problemResponseName(st)]; !ok || http.StatusText(st) == "" {
			continue
		}
		seen++
		if code := upstream.CodeOfStatus(st); status[code] != st {
			t.Errorf("%d is described, but no code of the error table has that status", st)
		}
		ex := problemExample(st)
		code, _ := ex["code"].(string)
		if got := status[upstream.Code(code)]; got != st {
			t.Errorf("the %d example has code %q, whose status in the error table is %d", st, code, got)
		}
		doc := statusDoc(st)
		for c, cst := range status {
			if regexp.MustCompile(`\b`+regexp.QuoteMeta(string(c))+`\b`).MatchString(doc) && cst != st {
				t.Errorf("the %d description names %s, whose status in the error table is %d", st, c, cst)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found %d described error statuses", seen)
	}
}
