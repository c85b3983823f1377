package upstream

import (
	"errors"
	"strings"
	"testing"
)

// invalidField is the field an invalid_input error names, or "" for any
// other error (and nil).
func invalidField(err error) string {
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalid || len(e.Fields) == 0 {
		return ""
	}
	return e.Fields[0].Field
}

func TestCheckMetric(t *testing.T) {
	ok := Metric{Name: "KR", TargetOperator: AtLeast, ManualType: TypeDouble, InitialValue: 0, Target: 10, Actual: 3,
		OwnerIDs: []string{"a", "b"}}
	oneOwner := Session{}
	oneOwner.Settings.MultipleOwners.DisabledForMetrics = true
	crit := 1e16
	for _, tc := range []struct {
		name  string
		edit  func(*Metric)
		ss    Session
		field string
	}{
		{"valid", func(*Metric) {}, Session{}, ""},
		{"no name", func(m *Metric) { m.Name = "" }, Session{}, "name"},
		{"long name", func(m *Metric) { m.Name = strings.Repeat("n", MaxNameLength+1) }, Session{}, "name"},
		{"unknown operator", func(m *Metric) { m.TargetOperator = "about" }, Session{}, "targetOperator"},
		{"every operator", func(m *Metric) { m.TargetOperator = StayBelow }, Session{}, ""},
		{"unknown type", func(m *Metric) { m.ManualType = "text" }, Session{}, "manualType"},
		{"a target beyond range", func(m *Metric) { m.Target = 1e16 }, Session{}, "target"},
		{"a critical value beyond range", func(m *Metric) { m.Critical = &crit }, Session{}, "critical"},
		{"an attainment beyond range is blamed on the target", func(m *Metric) { m.InitialValue, m.Target, m.Actual = 0, 1e-9, 1e15 },
			Session{}, "target"},
		{"a boolean's actual is 0 or 1", func(m *Metric) { m.ManualType, m.Target, m.Actual = TypeBool, 1, 2 }, Session{}, "actual"},
		{"a boolean done", func(m *Metric) { m.ManualType, m.Target, m.Actual = TypeBool, 1, 1 }, Session{}, ""},
		{"several owners where the session allows one", func(*Metric) {}, oneOwner, "ownerIds"},
		{"one owner where the session allows one", func(m *Metric) { m.OwnerIDs = m.OwnerIDs[:1] }, oneOwner, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := ok
			m.OwnerIDs = append([]string(nil), ok.OwnerIDs...)
			tc.edit(&m)
			err := CheckMetric(m, tc.ss)
			if tc.field == "" && err != nil {
				t.Fatalf("CheckMetric: %v", err)
			}
			if got := invalidField(err); got != tc.field {
				t.Fatalf("CheckMetric: %v, want invalid %q", err, tc.field)
			}
		})
	}
}

func TestCheckMetricLimit(t *testing.T) {
	ss := Session{}
	if err := CheckMetricLimit(ss, "g", 1000); err != nil {
		t.Fatalf("no limit: %v", err)
	}
	ss.Settings.MetricsPerGoalLimit = 2
	if err := CheckMetricLimit(ss, "g", 1); err != nil {
		t.Fatalf("below the limit: %v", err)
	}
	if got := ErrorCode(CheckMetricLimit(ss, "g", 2)); got != CodeLimitExceeded {
		t.Fatalf("at the limit: %q", got)
	}
}

func TestCheckCheckInInput(t *testing.T) {
	num := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name  string
		in    CheckInInput
		field string
	}{
		{"valid", CheckInInput{Actual: num(3), Confidence: num(10), Comment: "ok"}, ""},
		{"no actual", CheckInInput{}, "actual"},
		{"actual out of range", CheckInInput{Actual: num(-2e15)}, "actual"},
		{"confidence below 0", CheckInInput{Actual: num(1), Confidence: num(-0.5)}, "confidence"},
		{"confidence above 10", CheckInInput{Actual: num(1), Confidence: num(10.5)}, "confidence"},
		{"long comment", CheckInInput{Actual: num(1), Comment: strings.Repeat("c", MaxCommentLength+1)}, "comment"},
		{"comment at the limit", CheckInInput{Actual: num(1), Comment: strings.Repeat("c", MaxCommentLength)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCheckInInput(tc.in)
			if tc.field == "" && err != nil {
				t.Fatalf("CheckCheckInInput: %v", err)
			}
			if got := invalidField(err); got != tc.field {
				t.Fatalf("CheckCheckInInput: %v, want invalid %q", err, tc.field)
			}
		})
	}
}

func TestCheckCheckIn(t *testing.T) {
	m := Metric{TargetOperator: AtLeast, ManualType: TypeDouble, InitialValue: 0, Target: 1e-9}
	g := Goal{ID: "g"}
	if err := CheckCheckIn(g, m, 1e-9); err != nil {
		t.Fatalf("a check-in: %v", err)
	}
	if got := invalidField(CheckCheckIn(g, m, 1e15)); got != "actual" {
		t.Fatalf("an attainment beyond range: field %q", got)
	}
	g.ClosedStatus.Status = GoalAbandoned
	if got := ErrorCode(CheckCheckIn(g, m, 1e-9)); got != CodeGoalAbandoned {
		t.Fatalf("abandoned goal: %q", got)
	}
}
