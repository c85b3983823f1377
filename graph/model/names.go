package model

import (
	"strings"
	"unicode"
)

// GraphQL names of registry fields. Registry names are the REST JSON names,
// dotted for nested scalars ("closedStatus.status"). GraphQL input fields
// are camelCase ("closedStatusStatus") and enum values ALL_CAPS
// ("CLOSED_STATUS_STATUS"); the earlier spellings with underscores for dots
// ("closedStatus_status", and the registry names as enum values) stay in
// the schema as deprecated aliases.

// FilterField is the camelCase input field name of a registry field.
func FilterField(name string) string {
	var b strings.Builder
	up := false
	for _, r := range name {
		switch {
		case r == '.':
			up = true
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// LegacyField is the earlier input field (and enum value) spelling of a
// registry field: dots as underscores.
func LegacyField(name string) string { return strings.ReplaceAll(name, ".", "_") }

// SortValue is the ALL_CAPS enum value of a registry field: words split at
// lower-to-upper changes and dots, joined by underscores ("ownerIds" →
// "OWNER_IDS", "closedStatus.status" → "CLOSED_STATUS_STATUS").
func SortValue(name string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range name {
		switch {
		case r == '.':
			b.WriteByte('_')
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			b.WriteByte('_')
			b.WriteRune(r)
		default:
			b.WriteRune(unicode.ToUpper(r))
		}
		prev = r
	}
	return b.String()
}
