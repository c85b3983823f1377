package query

import (
	"math"
	"strings"
	"time"
)

// fieldValue checks v against the type of f and returns it normalised:
// string, float64, bool or nil.
func fieldValue(f Field, opName string, v *jvalue) (any, error) {
	if v.kind == jNull {
		return nil, nil
	}
	want := func(what string) error {
		return errorf("filter", f.Name, "field %q: %s expects %s, got %s", f.Name, opName, what, v.kind)
	}
	switch f.Type {
	case String, StringList:
		if v.kind != jString {
			return nil, want("a string")
		}
		return v.s, nil
	case Number:
		if v.kind != jNumber {
			return nil, want("a number")
		}
		return v.n, nil
	case Integer:
		if v.kind != jNumber {
			return nil, want("an integer")
		}
		if v.n != math.Trunc(v.n) {
			return nil, errorf("filter", f.Name, "field %q: %s expects an integer, got %v", f.Name, opName, v.n)
		}
		return v.n, nil
	case Bool:
		if v.kind != jBool {
			return nil, want("a boolean")
		}
		return v.b, nil
	case DateTime:
		if v.kind != jString {
			return nil, want("an RFC 3339 date-time string")
		}
		s, ok := normDateTime(v.s)
		if !ok {
			return nil, errorf("filter", f.Name, "field %q: invalid date-time %q (want RFC 3339, e.g. 2026-11-22T10:04:05Z, or yyyy-mm-dd)", f.Name, v.s)
		}
		return s, nil
	case Date:
		if v.kind != jString {
			return nil, want("a yyyy-mm-dd date string")
		}
		if !validDate(v.s) {
			return nil, errorf("filter", f.Name, "field %q: invalid date %q (want yyyy-mm-dd)", f.Name, v.s)
		}
		return v.s, nil
	case ID:
		if v.kind != jString {
			return nil, want("an id string")
		}
		s, ok := normID(v.s)
		if !ok {
			return nil, errorf("filter", f.Name, "field %q: invalid id %q (want 24 hexadecimal characters)", f.Name, v.s)
		}
		return s, nil
	}
	return nil, errorf("filter", f.Name, "field %q of type %s cannot be filtered", f.Name, f.Type)
}

// DateTimeLayout is the storage form of DateTime values.
const DateTimeLayout = "2006-01-02T15:04:05.000Z"

// normDateTime parses an RFC 3339 date-time (any offset, optional fraction)
// or a yyyy-mm-dd date (midnight UTC) and returns it in DateTimeLayout,
// truncated to milliseconds.
func normDateTime(s string) (string, bool) {
	var t time.Time
	var err error
	if len(s) == len("2006-01-02") {
		t, err = time.Parse("2006-01-02", s)
	} else {
		t, err = time.Parse(time.RFC3339Nano, s)
	}
	if err != nil {
		return "", false
	}
	t = t.UTC()
	if t.Year() < 0 || t.Year() > 9999 {
		return "", false
	}
	return t.Format(DateTimeLayout), true
}

// validDate reports whether s is a valid calendar date in yyyy-mm-dd form.
func validDate(s string) bool {
	if len(s) != len("2006-01-02") {
		return false
	}
	t, err := time.Parse("2006-01-02", s)
	return err == nil && t.Format("2006-01-02") == s
}

// normID returns s lower-cased if it is 24 hexadecimal characters.
func normID(s string) (string, bool) {
	if len(s) != 24 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return "", false
		}
	}
	return strings.ToLower(s), true
}
