package upstream

import (
	"strings"
	"time"
)

// TimeLayout is the wire format of timestamps: RFC 3339, UTC, milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// DateLayout is the wire format of date-only fields.
const DateLayout = "2006-01-02"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime accepts an RFC 3339 timestamp (any offset, optional fraction) or
// a yyyy-mm-dd date (midnight UTC) and returns it normalised to TimeLayout.
// The empty string stays empty.
func ParseTime(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return FormatTime(t), nil
	}
	if t, err := time.Parse(DateLayout, s); err == nil {
		return FormatTime(t), nil
	}
	return "", Invalid(field, "%q is not an RFC 3339 timestamp or a yyyy-mm-dd date", s)
}

// ParseDate validates a yyyy-mm-dd date. The empty string stays empty; an
// RFC 3339 timestamp is accepted and cut to its UTC date, because clients of
// the original API send "0001-01-01T00:00:00Z" for "no date".
func ParseDate(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if t, err := time.Parse(DateLayout, s); err == nil {
		return t.Format(DateLayout), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if t.Year() <= 1 {
			return "", nil
		}
		return t.UTC().Format(DateLayout), nil
	}
	return "", Invalid(field, "%q is not a yyyy-mm-dd date", s)
}
