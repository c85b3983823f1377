package upstream

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestOwners(t *testing.T) {
	for _, c := range []struct {
		owner   string
		owners  []string
		wantID  string
		wantIDs []string
	}{
		{"", nil, "me", []string{"me"}},
		{"a", nil, "a", []string{"a"}},
		{"", []string{"b", "c", "b"}, "b", []string{"b", "c"}},
		{"a", []string{"b", "c"}, "a", []string{"a", "b", "c"}},
		{"c", []string{"b", "c"}, "c", []string{"b", "c"}},
	} {
		id, ids := Owners(c.owner, c.owners, "me")
		if id != c.wantID || !reflect.DeepEqual(ids, c.wantIDs) {
			t.Errorf("Owners(%q, %q) = %q, %q; want %q, %q", c.owner, c.owners, id, ids, c.wantID, c.wantIDs)
		}
	}
}

// TestCheckGoal: each rule refuses with its field, in order, and a goal
// that keeps them gets what derives from its fields.
func TestCheckGoal(t *testing.T) {
	facts := GoalFacts{
		OwnerExists: func(id string) bool { return id == "u1" || id == "t1" },
		Goal: func(id string) (Goal, bool) {
			if id == "p" {
				return Goal{ID: "p", SessionID: "s0"}, true
			}
			return Goal{}, false
		},
	}
	good := func() Goal {
		g := Goal{ID: "g", Name: "Grow", AttainmentTypeString: AverageKR, OwnerID: "u1", OwnerIDs: []string{"u1", "t1"},
			DateFrom: "2026-01-01", DateTo: "2026-01-31", ParentID: "p", Metrics: []Metric{{ID: "m"}}}
		g.ClosedStatus.Status = GoalActive
		return g
	}
	one := Session{ID: "s"}
	one.Settings.MultipleOwners.DisabledForGoals = true
	for _, c := range []struct {
		name  string
		edit  func(*Goal)
		ss    Session
		field string
	}{
		{"no name", func(g *Goal) { g.Name = "" }, Session{}, "name"},
		{"long name", func(g *Goal) { g.Name = strings.Repeat("x", MaxNameLength+1) }, Session{}, "name"},
		{"mode", func(g *Goal) { g.AttainmentTypeString = "median" }, Session{}, "attainmentTypeString"},
		{"closed", func(g *Goal) { g.ClosedStatus.Status = "done" }, Session{}, "closedStatus.status"},
		{"dates", func(g *Goal) { g.DateTo = "2025-12-31" }, Session{}, "dateTo"},
		{"one owner", func(*Goal) {}, one, "ownerIds"},
		{"unknown owner", func(g *Goal) { g.OwnerIDs = append(g.OwnerIDs, "nobody") }, Session{}, "ownerIds"},
		{"own parent", func(g *Goal) { g.ParentID = "g" }, Session{}, "parentId"},
		{"unknown parent", func(g *Goal) { g.ParentID = "q" }, Session{}, "parentId"},
	} {
		g := good()
		c.edit(&g)
		err := CheckGoal(&g, c.ss, facts)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalid || len(e.Fields) != 1 || e.Fields[0].Field != c.field {
			t.Errorf("%s: %v, want invalid_input on %s", c.name, err, c.field)
		}
	}
	g := good()
	if err := CheckGoal(&g, Session{}, facts); err != nil {
		t.Fatal(err)
	}
	if g.ParentType != "goal" || g.ParentGoalSessionID != "s0" || g.NumberOfOwners != 2 || g.Duration != 30 ||
		g.URL != "/results/goals/g" || g.Metrics != nil {
		t.Errorf("derived: %+v", g)
	}
}

func TestCheckGoalLimit(t *testing.T) {
	ss := Session{ID: "s"}
	if err := CheckGoalLimit(ss, "u", 100); err != nil {
		t.Errorf("no limit: %v", err)
	}
	ss.Settings.GoalsPerOwnerLimit = 2
	if err := CheckGoalLimit(ss, "u", 1); err != nil {
		t.Errorf("under the limit: %v", err)
	}
	var e *Error
	if err := CheckGoalLimit(ss, "u", 2); !errors.As(err, &e) || e.Code != CodeLimitExceeded {
		t.Errorf("at the limit: %v", err)
	}
}
