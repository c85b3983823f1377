package query

import "testing"

func TestSplitIn(t *testing.T) {
	e := And(In("goalId", "a", "b", "c", "d", "e"), Eq("itemType", "goal"))
	parts, ok := SplitIn(e, 2)
	if !ok || len(parts) != 2 {
		t.Fatalf("SplitIn = %v, %v", parts, ok)
	}
	want := []string{`{"goalId":{"$in":["a","b"]},"itemType":"goal"}`, `{"goalId":{"$in":["c","d","e"]},"itemType":"goal"}`}
	for i, p := range parts {
		if p.String() != want[i] {
			t.Errorf("part %d = %s, want %s", i, p, want[i])
		}
	}
	if e.String() != `{"goalId":{"$in":["a","b","c","d","e"]},"itemType":"goal"}` {
		t.Errorf("SplitIn changed its operand: %s", e)
	}
	if parts, ok := SplitIn(In("id", "x", "y", "z"), 5); !ok || len(parts) != 3 {
		t.Errorf("SplitIn(3 values, 5) = %v, %v", parts, ok)
	}
	if _, ok := SplitIn(Eq("id", "x"), 2); ok {
		t.Error("SplitIn split an equality")
	}
}
