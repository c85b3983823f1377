package upstream

import (
	"fmt"
	"math"
	"reflect"
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

// Length limits of text fields, in characters (Unicode code points). Names
// and titles are bounded by MaxNameLength and comments by MaxCommentLength
// (metricrules.go). The limits are generous for what people write — a
// description of 20,000 characters is some eight pages — and they bound
// what a filter's regular expressions read per row (query.MaxRegexProgram).
const (
	// MaxDescriptionLength bounds a description, and every text field
	// without a limit of its own.
	MaxDescriptionLength = 20000
	// MaxRichTextLength bounds the rich-text form of a description or
	// comment, whose markup takes room of its own.
	MaxRichTextLength = 40000
)

// TextLimit returns the most characters a text field may hold, by its
// JSON name (the last part of its path): MaxNameLength for names and
// titles, MaxCommentLength for comments, MaxRichTextLength for rich text,
// MaxDescriptionLength for descriptions and anything else.
func TextLimit(name string) int {
	switch name {
	case "name", "title", "firstName", "lastName":
		return MaxNameLength
	case "comment":
		return MaxCommentLength
	case "richTextDescription", "richTextComment":
		return MaxRichTextLength
	}
	return MaxDescriptionLength
}

// CheckTextLimits refuses, with an invalid_input error naming its path
// ("description", "settings[2].value"), the first string in v longer than
// its TextLimit. v is a write's input: a struct, a pointer to one, or a map
// of them; it is walked through exported fields by their JSON names,
// pointers, slices and maps.
func CheckTextLimits(v any) error {
	return checkTextLimits(reflect.ValueOf(v), "", "")
}

func checkTextLimits(v reflect.Value, path, name string) error {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if limit := TextLimit(name); len(s) > limit { // len counts bytes, at least the characters
			if n := utf8.RuneCountInString(s); n > limit {
				return Invalid(path, "must be at most %d characters (it has %d)", limit, n)
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return checkTextLimits(v.Elem(), path, name)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes, not text
		}
		for i := range v.Len() {
			if err := checkTextLimits(v.Index(i), fmt.Sprintf("%s[%d]", path, i), name); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := fmt.Sprint(iter.Key().Interface())
			if err := checkTextLimits(iter.Value(), joinPath(path, k), k); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			jname, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if jname == "-" {
				continue
			}
			if f.Anonymous && jname == "" {
				if err := checkTextLimits(v.Field(i), path, name); err != nil {
					return err
				}
				continue
			}
			if jname == "" {
				jname = f.Name
			}
			if err := checkTextLimits(v.Field(i), joinPath(path, jname), jname); err != nil {
				return err
			}
		}
	}
	return nil
}

// joinPath appends the field name to a path of fields.
func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
