package resolvers_test

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// at walks a generic JSON value by a dotted path; numbers index lists and
// "#" is the length of a list.
func at(tb testing.TB, v any, path string) any {
	tb.Helper()
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[p]; !ok {
				tb.Fatalf("path %s: no %q in %v", path, p, x)
			}
		case []any:
			if p == "#" {
				return float64(len(x))
			}
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(x) {
				tb.Fatalf("path %s: bad index %q into %d items", path, p, len(x))
			}
			v = x[i]
		default:
			tb.Fatalf("path %s: cannot index %T with %q", path, v, p)
		}
	}
	return v
}

func str(tb testing.TB, v any, path string) string {
	tb.Helper()
	s, ok := at(tb, v, path).(string)
	if !ok {
		tb.Fatalf("%s is %v, not a string", path, at(tb, v, path))
	}
	return s
}

func wantAt(tb testing.TB, v any, path string, want any) {
	tb.Helper()
	got := at(tb, v, path)
	if w, ok := want.(int); ok {
		want = float64(w)
	}
	if !reflect.DeepEqual(got, want) {
		tb.Fatalf("%s = %#v, want %#v", path, got, want)
	}
}

// names collects the values of field over a list.
func names(tb testing.TB, v any, path, field string) []string {
	tb.Helper()
	var out []string
	for _, it := range at(tb, v, path).([]any) {
		out = append(out, fmt.Sprint(it.(map[string]any)[field]))
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func names2(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprint(x)
	}
	return out
}
