package upstream

import (
	"maps"
	"strings"
	"unicode"

	"github.com/okrgate/okrgate/upstream/query"
)

// The descriptions of the JSON fields of the resources and inputs, in one
// place for every document that describes them: one text per field name,
// shared by every type that carries the field (fielddocs_shared.go,
// fielddocs_content.go), with type-specific texts where a name means
// something else in one type (fielddocs_types.go). The OpenAPI document
// (upstream/transport/rest) takes its property descriptions from FieldDoc; the field
// registries (fields*.go) take theirs from it at init, and the GraphQL
// schema takes them from the registries (query.Field.Description) and
// CommonFieldDoc.

// FieldDoc describes the JSON field name of the Go type typeName (e.g.
// "Metric", "MetricInput"). The text is never empty: a field with no text
// of its own gets one derived from its name.
func FieldDoc(typeName, name string) string {
	if d, ok := writtenFieldDoc(typeName, name); ok {
		return d
	}
	return derivedFieldDoc(name)
}

// HasFieldDoc reports whether name has a written description (for typeName
// or shared), as opposed to one derived from its name.
func HasFieldDoc(typeName, name string) bool {
	_, ok := writtenFieldDoc(typeName, name)
	return ok
}

// CommonFieldDoc is the written description of a field name that means
// the same in every type that has it ("id", "dateCreated", "ownerIds",
// ...), or "".
func CommonFieldDoc(name string) string {
	if d, ok := fieldDocs[name]; ok {
		return d
	}
	return contentFieldDocs[name]
}

// docAliases are types that carry another type's fields under another
// name: the tag listing's TagDetail is a Tag with counts.
var docAliases = map[string]string{"TagDetail": "Tag"}

// writtenFieldDoc looks name up for typeName (or the type it aliases),
// then among the shared texts.
func writtenFieldDoc(typeName, name string) (string, bool) {
	if d, ok := typeFieldDocs[typeName+"."+name]; ok {
		return d, true
	}
	if alias, ok := docAliases[typeName]; ok {
		if d, ok := typeFieldDocs[alias+"."+name]; ok {
			return d, true
		}
	}
	if d := CommonFieldDoc(name); d != "" {
		return d, true
	}
	return "", false
}

// registryTypes names the Go type each field registry lists, whose
// texts describe the registry's fields: the Item of each of Resources.
var registryTypes = func() map[*query.Registry]string {
	out := make(map[*query.Registry]string, len(Resources))
	for _, r := range Resources {
		out[r.Fields] = r.Item.Name()
	}
	return out
}()

// RegistryTypes returns, for each field registry, the name of the Go type
// of this package whose items it lists (TagFields: "TagDetail"). The
// GraphQL side checks its map of types to registries against it
// (graph/model, TestResourcesCoverTheRegistries).
func RegistryTypes() map[*query.Registry]string { return maps.Clone(registryTypes) }

// init describes every registry field that has a written text: the
// GraphQL schema reads the registries, so it shows the texts FieldDoc
// gives the OpenAPI document.
func init() {
	for reg, typ := range registryTypes {
		docs := map[string]string{}
		for _, f := range reg.Fields() {
			if d, ok := writtenFieldDoc(typ, f.Name); ok {
				docs[f.Name] = d
			}
		}
		reg.Describe(docs)
	}
}

// RequiredInputFields names the fields a create or replace body must carry:
// a body without one of them is a 400 invalid_input naming the field. The
// OpenAPI document marks them required; TestRequiredInputFields holds the
// store to it.
func RequiredInputFields(typeName string) []string {
	return requiredInputs[typeName]
}

var requiredInputs = map[string][]string{
	"GoalInput":               {"name", "sessionId"},
	"MetricInput":             {"name", "goalId", "target"},
	"CheckInInput":            {"actual"},
	"TaskInput":               {"name"},
	"SessionInput":            {"title", "start", "end"},
	"TeamInput":               {"name"},
	"UserInput":               {"email"},
	"RoleInput":               {"name"},
	"RoleMappingInput":        {"roleId"},
	"PermissionInput":         {"action"},
	"BadgeInput":              {"name"},
	"AssignBadgeInput":        {"badgeId", "assigneeIds"},
	"DashboardInput":          {"name"},
	"DashboardParameterInput": {"key", "title"},
	"KPIGroupInput":           {"name"},
	"KPIInput":                {"name"},
	"ListInput":               {"title", "listType"},
	"AnnouncementInput":       {"comment"},
	"CommentInput":            {"targetId", "text"},
	"TagInput":                {"title"},
}

// derivedFieldDoc describes a field from its name alone: "teamGoalCount" →
// "Team goal count.", "dashboardsIds" → "Ids of the dashboards.".
func derivedFieldDoc(name string) string {
	words := splitWords(name)
	if len(words) == 0 {
		return "A field."
	}
	last := words[len(words)-1]
	rest := strings.Join(words[:len(words)-1], " ")
	switch {
	case last == "ids" && rest != "":
		return "Ids of the " + rest + "."
	case last == "id" && rest != "":
		return "Id of the " + rest + "."
	case last == "count" && rest != "":
		return "Number of " + rest + "."
	case words[0] == "is" || words[0] == "has" || words[0] == "can" || words[0] == "should" || words[0] == "include" || words[0] == "enable" || words[0] == "allow":
		return "Whether " + strings.Join(words, " ") + "."
	case last == "at" || last == "date":
		return "When: " + strings.Join(words, " ") + " (RFC 3339)."
	}
	s := strings.Join(words, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// splitWords splits camelCase, snake_case and ALLCAPS runs into lower-case
// words.
func splitWords(name string) []string {
	var words []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '.' || r == '-':
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}
