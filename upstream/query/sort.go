package query

import "strings"

// SortKey is one key of a sort expression.
type SortKey struct {
	Field string // registry field name ("id" for "_id")
	Desc  bool   // descending order
}

// MaxSortKeys bounds the number of keys in one sort expression.
const MaxSortKeys = 10

// ParseSort parses a sort expression: comma-separated field names, each
// optionally prefixed by "-" (descending) or "+" (ascending), e.g.
// "-attainment,name". "_id" means "id". An unknown, non-sortable or repeated
// field is an *Error with Param "sort". An empty src yields no keys.
func ParseSort(reg *Registry, src string) ([]SortKey, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	parts := strings.Split(src, ",")
	if len(parts) > MaxSortKeys {
		return nil, errorf("sort", "", "sort has more than %d keys", MaxSortKeys)
	}
	keys := make([]SortKey, 0, len(parts))
	seen := make(map[string]bool, len(parts))
	for _, part := range parts {
		part = strings.TrimSpace(part)
		var k SortKey
		switch {
		case strings.HasPrefix(part, "-"):
			k.Desc = true
			part = part[1:]
		case strings.HasPrefix(part, "+"):
			part = part[1:]
		}
		if part == "" {
			return nil, errorf("sort", "", "empty field name in sort %q", src)
		}
		f, ok := reg.Field(part)
		if !ok {
			return nil, errorf("sort", part, "unknown field %q", part)
		}
		if !f.Sortable {
			return nil, errorf("sort", f.Name, "field %q is not sortable", f.Name)
		}
		if seen[f.Name] {
			return nil, errorf("sort", f.Name, "field %q appears more than once", f.Name)
		}
		seen[f.Name] = true
		k.Field = f.Name
		keys = append(keys, k)
	}
	return keys, nil
}
