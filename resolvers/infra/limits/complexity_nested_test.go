package limits

import (
	"context"
	"testing"

	"github.com/99designs/gqlgen/complexity"
	"github.com/vektah/gqlparser/v2"

	"github.com/okrgate/okrgate/graph"
)

// TestNestedArgumentsCost: a nested list with first costs first per parent
// (without it, the edge's estimate), a nested connection first (default
// DefaultFirst), and nodes one selection per id.
func TestNestedArgumentsCost(t *testing.T) {
	var cfg graph.Config
	SetComplexity(&cfg)
	es := graph.NewExecutableSchema(cfg)
	cost := func(q string) int {
		t.Helper()
		doc, err := gqlparser.LoadQueryWithRules(es.Schema(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		return complexity.Calculate(context.Background(), es, doc.Operations[0], nil)
	}
	// goals(first: 10) { nodes { X } }: 10 × (nodes 1 + X's cost), X's cost
	// its multiplier × its selection (id 1; nodes { id } 2).
	for _, c := range []struct {
		field string
		per   int // cost of the field per goal
	}{
		{`children { id }`, EstChildren},
		{`children(first: 50) { id }`, 50},
		{`children(first: 100, filter: {name: {eq: "x"}}) { id }`, 100},
		{`childrenConnection { nodes { id } }`, DefaultFirst * 2},
		{`childrenConnection(first: 100) { nodes { id } }`, 100 * 2},
		{`metrics(first: 7) { id }`, 7},
		{`tasksConnection(first: 3) { totalCount }`, 3 * 1},
	} {
		got := cost(`{ goals(first: 10) { nodes { ` + c.field + ` } } }`)
		want := 10 * (1 + c.per)
		if got != want {
			t.Errorf("%s: cost %d, want %d", c.field, got, want)
		}
	}
	if got, want := cost(`{ nodes(ids: ["a", "b", "c"]) { id } }`), 3; got != want {
		t.Errorf("nodes of 3 ids: cost %d, want %d", got, want)
	}
}
