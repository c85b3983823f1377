package upstream

import "strings"

// ParseLegacyUserFilter parses the deprecated user listing's full-text
// filter: blank- or comma-separated property:value terms on email, name and
// roles ("roles:<id>,roles:<id>"). Any other property is invalid input.
// It is part of the contract's query format, so the REST facade and the
// GraphQL resolvers parse the filter with this one function.
func ParseLegacyUserFilter(src string) (LegacyUserQuery, error) {
	var q LegacyUserQuery
	for _, term := range strings.FieldsFunc(src, func(r rune) bool { return r == ',' || r == ' ' }) {
		prop, val, ok := strings.Cut(term, ":")
		val = strings.TrimSpace(val)
		if !ok || val == "" {
			return q, Invalid("filter", "%q is not a property:value term", term)
		}
		switch prop {
		case "email":
			q.Email = append(q.Email, val)
		case "name":
			q.Name = append(q.Name, val)
		case "roles":
			if !ValidID(val) {
				return q, Invalid("filter", "%q is not a role id", val)
			}
			q.Roles = append(q.Roles, val)
		default:
			return q, Invalid("filter", "unknown property %q; use email, name or roles", prop)
		}
	}
	return q, nil
}
