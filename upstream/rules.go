package upstream

import (
	"math"
	"strings"
	"time"
)

// MetricAttainment returns the attainment of a key result as a fraction
// (1.0 = 100%), never below 0 and not capped above:
//   - at_least:   (actual − initial) / (target − initial)
//   - at_most:    (initial − actual) / (initial − target)
//   - stay_above: 1 if actual > target, else 0
//   - stay_below: 1 if actual < target, else 0
//
// When target equals initial the key result is 1 if the target is met by its
// operator and 0 otherwise. A boolean key result's attainment is its actual (0 or 1).
func MetricAttainment(manualType, operator string, initial, target, actual float64) float64 {
	if manualType == TypeBool {
		if actual >= 1 {
			return 1
		}
		return 0
	}
	var a float64
	switch operator {
	case StayAbove:
		a = boolf(actual > target)
	case StayBelow:
		a = boolf(actual < target)
	case AtMost:
		if target == initial {
			a = boolf(actual <= target)
		} else {
			a = (initial - actual) / (initial - target)
		}
	default: // AtLeast
		if target == initial {
			a = boolf(actual >= target)
		} else {
			a = (actual - initial) / (target - initial)
		}
	}
	if a < 0 || math.IsNaN(a) {
		return 0
	}
	return a
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TagName returns a tag's identity for a title: lowercased and space-trimmed.
func TagName(title string) string {
	return strings.ToLower(strings.TrimSpace(title))
}

// DurationDays returns the whole days from one timestamp to another (in
// TimeLayout or yyyy-mm-dd), or 0 when either is missing or to precedes from.
func DurationDays(from, to string) int {
	f, err1 := parseAny(from)
	t, err2 := parseAny(to)
	if err1 != nil || err2 != nil || t.Before(f) {
		return 0
	}
	return int(t.Sub(f).Hours() / 24)
}

func parseAny(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Parse(DateLayout, s)
}
