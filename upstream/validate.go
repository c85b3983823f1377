package upstream

import (
	"math"
	"strings"
	"unicode/utf8"
)

// MaxMagnitude bounds every number a client writes (a key result's initial
// value, target, actual and critical value, a KPI's value): |v| ≤ 10^15.
// That is more than any count or currency amount an OKR tracks, keeps every
// value exact to the cent in a float64, and leaves the derived figures
// (attainment and the means over a tree) far from overflow, so that nothing
// computed from accepted input can become an infinity that JSON cannot
// encode.
const MaxMagnitude = 1e15

// MaxAttainment bounds the attainment a key result may reach (10^15, i.e.
// 10^17 %). An attainment beyond it comes from a target a hair's breadth
// from the initial value and would make every mean over the tree
// meaningless; such a write is refused rather than stored.
const MaxAttainment = 1e15

// CheckNumber refuses NaN, the infinities and magnitudes over MaxMagnitude
// with an invalid_input error naming field.
func CheckNumber(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Invalid(field, "must be a finite number")
	}
	if math.Abs(v) > MaxMagnitude {
		return Invalid(field, "must be between -1e15 and 1e15")
	}
	return nil
}

// CheckMetricNumbers checks the numbers of a key result about to be
// written: each must pass CheckNumber, and the attainment they give must be
// finite and at most MaxAttainment. blame names the field reported when the
// attainment is out of range — the field the write changes ("actual" for a
// check-in, "target" otherwise).
func CheckMetricNumbers(blame, manualType, operator string, initial, target, actual float64, critical *float64) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"initialValue", initial}, {"target", target}, {"actual", actual}} {
		if err := CheckNumber(f.name, f.v); err != nil {
			return err
		}
	}
	if critical != nil {
		if err := CheckNumber("critical", *critical); err != nil {
			return err
		}
	}
	a := MetricAttainment(manualType, operator, initial, target, actual)
	if math.IsNaN(a) || math.IsInf(a, 0) || a > MaxAttainment {
		return Invalid(blame, "gives an attainment beyond %g; the target is too close to the initial value for this actual", float64(MaxAttainment))
	}
	return nil
}

// CheckText refuses text that is not valid UTF-8 or holds a NUL character,
// naming field. Such text is refused rather than repaired: silently
// replacing bytes would store something the client did not send.
func CheckText(field, s string) error {
	if !utf8.ValidString(s) {
		return Invalid(field, "must be valid UTF-8")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return Invalid(field, "must not contain NUL characters")
	}
	return nil
}
