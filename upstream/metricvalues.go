package upstream

import (
	"strings"
	"time"
)

// MetricValue is one point of a key result's value history: the value a
// check-in set, on the check-in's date. The real platform's clients read the
// history from GET /api/v1/metrics/{id}/values as items with a date and a
// value.
type MetricValue struct {
	Date       string   `json:"date"`
	Value      float64  `json:"value"`
	Attainment float64  `json:"attainment"`
	Confidence *float64 `json:"confidence"`
	CheckInID  string   `json:"checkInId"`
	Comment    string   `json:"comment"`
}

// MetricValues returns the history of check-ins, in their order.
func MetricValues(cs []CheckIn) []MetricValue {
	out := make([]MetricValue, len(cs))
	for i, c := range cs {
		out[i] = MetricValue{Date: c.CheckInDate, Value: c.Actual, Attainment: c.Attainment, Confidence: c.Confidence, CheckInID: c.ID, Comment: c.Comment}
	}
	return out
}

// ValueRange parses the from and to bounds of a value history: each an RFC
// 3339 timestamp or a yyyy-mm-dd date, either may be empty (unbounded). A
// date-only to covers its whole day (the history up to the end of that
// date, as a client asking for "until today" means); from after to is
// invalid input. The bounds come back in TimeLayout, to exclusive when it
// was a date (the next midnight) and inclusive otherwise: toExclusive says
// which.
func ValueRange(from, to string) (lo, hi string, toExclusive bool, err error) {
	if lo, err = ParseTime("from", from); err != nil {
		return "", "", false, err
	}
	to = strings.TrimSpace(to)
	if d, derr := time.Parse(DateLayout, to); derr == nil {
		hi, toExclusive = FormatTime(d.AddDate(0, 0, 1)), true
	} else if hi, err = ParseTime("to", to); err != nil {
		return "", "", false, err
	}
	if lo != "" && hi != "" && (lo > hi || lo == hi && toExclusive) {
		return "", "", false, Invalid("from", "%s is after to (%s)", from, to)
	}
	return lo, hi, toExclusive, nil
}
