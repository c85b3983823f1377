package resolvers_test

import (
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

// TestMutationTextLimits: a mutation whose input holds a description over
// its limit is refused with BAD_USER_INPUT naming the argument's path, and
// nothing is written; one at the limit is accepted.
func TestMutationTextLimits(t *testing.T) {
	o := newOrgFixture(t, "textlimits")
	count := func() int {
		var c struct{ Goals struct{ TotalCount int } }
		o.do(t, `{ goals { totalCount } }`, nil).mustData(t, &c)
		return c.Goals.TotalCount
	}
	before := count()
	const create = `mutation($s: ID!, $d: String) { createGoal(input: {name: "Long", sessionId: $s, description: $d}) { id } }`
	r := o.do(t, create, map[string]any{"s": o.sessionID, "d": strings.Repeat("a", 250000)})
	if r.code() != "BAD_USER_INPUT" || !strings.Contains(r.Errors[0].Message, "input.description: must be at most 20000 characters") {
		t.Fatalf("a 250,000-character description: %s", r.Data)
	}
	if n := count(); n != before {
		t.Fatalf("the refused mutation wrote: %d goals, then %d", before, n)
	}
	var w struct{ CreateGoal struct{ ID string } }
	o.do(t, create, map[string]any{"s": o.sessionID, "d": strings.Repeat("a", upstream.MaxDescriptionLength)}).mustData(t, &w)
	if w.CreateGoal.ID == "" {
		t.Fatal("a description at the limit was not written")
	}
}
