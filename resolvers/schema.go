package resolvers

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"

	"github.com/okrgate/okrgate/graph"
	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The schema the server serves (introspection, validation) is the schema of
// graph/schema/*.graphqls with two changes made when the server is built:
//
//   - descriptions: a field of a resource type that its schema file leaves
//     undescribed takes the description of the registry field of the same
//     name (upstream/fields_docs.go, the text the filter inputs and sort
//     enums are generated from too), and the recurring shapes (connections,
//     edges, arguments) take their generic text below, so every type,
//     field, argument and enum value has one;
//   - Apollo Federation's fields, types and directives, which gqlgen's
//     federation plugin generates the executor with, only under
//     graphqlhttp.Config.Federation (withoutFederation below).
//
// @defer, which gqlparser declares in every schema, is served: a query
// asking for multipart/mixed gets its deferred fragments in later parts
// (package graphqlhttp).

// argDocs describe the arguments that mean the same wherever they appear.
var argDocs = map[string]string{
	"id":                   "The item's id.",
	"ids":                  "The items' ids.",
	"first":                "At most this many items (at most 100).",
	"after":                "Start after this cursor (pageInfo.endCursor or an edge's cursor).",
	"filter":               "Only the items matching all the given conditions.",
	"orderBy":              "Sort keys, in order; id is always the final tie-breaker.",
	"input":                "The values to write; left-out fields keep their value on updates.",
	"ifMatch":              "Write only if the item's etag is still this one (else PRECONDITION_FAILED).",
	"roots":                "true keeps only the objectives without a parent.",
	"includeDemo":          "true lists demo sessions too.",
	"includeTeamRoles":     "true adds the roles mapped to the user's teams.",
	"name":                 "Only items whose name contains this text (case-insensitive).",
	"itemType":             "The kind of item: session, goal or dashboard.",
	"targetType":           "The kind of item: session, goal, metric, task or dashboard.",
	"principalId":          "The id of the user, team or role.",
	"goalId":               "The objective's id.",
	"metricId":             "The key result's id.",
	"title":                "The tag's title; its identity is the title lowercased and trimmed.",
	"titles":               "The tags' titles.",
	"active":               "true activates, false deactivates.",
	"type":                 "The target type of the listing (goal, metric, task, ...).",
	"tag":                  "The tag's id, name or title.",
	"access":               "The access to set.",
	"actions":              "The action names.",
	"approve":              "true approves, false rejects.",
	"reactionId":           "The reaction.",
	"favorite":             "true adds the group to the caller's favourites, false removes it.",
	"skip":                 "Skip this many items.",
	"take":                 "At most this many items (1 to 1000).",
	"includeShadowedRoles": "Passed to the REST listing as includeShadowedRoles.",
	"userId":               "The user's id.",
	"teamId":               "The team's id.",
	"roleId":               "The role's id.",
	"kpiId":                "The KPI's id.",
	"groupId":              "The KPI group's id.",
	"dashboardId":          "The dashboard's id.",
	"insightId":            "The insight's id.",
	"key":                  "The parameter's key.",
	"domain":               "The domain to check.",
	"accountName":          "The account name to check.",
	"confidence":           "The confidence settings to set.",
	"notifications":        "The notification settings to set.",
	"reason":               "Why.",
}

// fieldDocs describe the fields of the recurring shapes.
var fieldDocs = map[string]string{
	"totalCount":      "How many items match, over all pages.",
	"pageInfo":        "Where this page is in the whole list.",
	"nodes":           "The items of this page.",
	"edges":           "The items of this page with their cursors.",
	"cursor":          "The item's position, for after.",
	"node":            "The item.",
	"hasNextPage":     "Whether items follow this page.",
	"hasPreviousPage": "Whether items precede this page.",
	"startCursor":     "The cursor of the first item of the page; null for an empty page.",
	"endCursor":       "The cursor of the last item of the page (pass it as after); null for an empty page.",
	"etag":            "The entity tag of the stored version (REST's ETag); pass it as ifMatch to an update.",
}

// ServedSchema returns the schema the server serves: the schema files with
// descriptions filled in (see above), and without Apollo Federation's
// fields, types and directives (FederatedSchema has them).
func ServedSchema() (*ast.Schema, error) {
	return servedSchema(false)
}

// FederatedSchema returns the schema served under
// graphqlhttp.Config.Federation: ServedSchema with Apollo Federation's
// _service and _entities fields, the types they take and answer and the
// @key of the entity types.
func FederatedSchema() (*ast.Schema, error) {
	return servedSchema(true)
}

func servedSchema(federated bool) (*ast.Schema, error) {
	s, err := gqlparser.LoadSchema(graph.Sources()...)
	if err != nil {
		return nil, fmt.Errorf("load schema: %w", err)
	}
	withoutFederation(s, federated)
	for _, def := range s.Types {
		if !def.BuiltIn && def.Kind != ast.InputObject {
			describeType(s, def)
		}
	}
	for _, def := range s.Types { // inputs after outputs: they copy them
		if !def.BuiltIn && def.Kind == ast.InputObject {
			describeType(s, def)
		}
	}
	return s, nil
}

// inputOf returns the output type an input type writes (CreateGoalInput,
// UpdateGoalInput and GoalInput → Goal), or nil.
func inputOf(s *ast.Schema, def *ast.Definition) *ast.Definition {
	name := strings.TrimSuffix(def.Name, "Input")
	if name == def.Name {
		return nil
	}
	for _, n := range []string{name, strings.TrimPrefix(name, "Create"), strings.TrimPrefix(name, "Update")} {
		if t := s.Types[n]; t != nil && t.Kind != ast.InputObject {
			return t
		}
	}
	return nil
}

// WriteSchema writes the served schema in SDL (what okrgate schema prints).
func WriteSchema(w io.Writer) error {
	s, err := ServedSchema()
	if err != nil {
		return err
	}
	formatter.NewFormatter(w, formatter.WithIndent("  ")).FormatSchema(s)
	return nil
}

// describeType fills in the missing descriptions of def, its fields and
// their arguments.
func describeType(s *ast.Schema, def *ast.Definition) {
	reg := model.Registry(def.Name)
	out := inputOf(s, def)
	if out != nil {
		reg = model.Registry(out.Name)
	}
	for _, f := range def.Fields {
		if f.Description == "" {
			f.Description = fieldDoc(def, reg, f.Name)
		}
		if f.Description == "" && out != nil {
			if of := out.Fields.ForName(f.Name); of != nil {
				f.Description = of.Description
			}
		}
		if f.Description == "" {
			f.Description = upstream.CommonFieldDoc(f.Name)
		}
		for _, a := range f.Arguments {
			if a.Description == "" {
				a.Description = argDocs[a.Name]
			}
		}
	}
	if def.Name == "Query" || def.Name == "Mutation" {
		for _, f := range def.Fields {
			if f.Description == "" {
				f.Description = rootDoc(def.Name, f)
			}
		}
	}
	if def.Description == "" {
		switch {
		case out != nil && strings.HasPrefix(def.Name, "Create"):
			def.Description = "The values of a new " + out.Name + "."
		case out != nil && strings.HasPrefix(def.Name, "Update"):
			def.Description = "Changes to a " + out.Name + ": only the fields given change."
		case out != nil:
			def.Description = "The input form of " + out.Name + "."
		case strings.HasSuffix(def.Name, "Connection"):
			def.Description = "A page of " + strings.TrimSuffix(def.Name, "Connection") + " items (Relay connection)."
		case strings.HasSuffix(def.Name, "Edge"):
			def.Description = "A " + strings.TrimSuffix(def.Name, "Edge") + " item with its cursor."
		case strings.HasSuffix(def.Name, "Payload"):
			def.Description = "What " + strings.TrimSuffix(def.Name, "Payload") + " changed, read after the write."
		}
	}
}

// fieldDoc is the description of the field name of def: the registry's,
// else the generic one.
func fieldDoc(def *ast.Definition, reg *query.Registry, name string) string {
	if f, ok := reg.Field(name); ok && f.Description != "" {
		return f.Description
	}
	if strings.HasSuffix(def.Name, "Connection") || strings.HasSuffix(def.Name, "Edge") || def.Name == "PageInfo" || name == "etag" {
		return fieldDocs[name]
	}
	return ""
}

// rootDoc is the generic description of a query or mutation field, from its
// name and type: reads by id and connections, creates, updates, deletes.
func rootDoc(root string, f *ast.FieldDefinition) string {
	t := f.Type.Name()
	if root == "Query" {
		if item, ok := strings.CutSuffix(t, "Connection"); ok {
			return "The " + item + " items the caller may see, a page at a time (first, after, filter, orderBy)."
		}
		if f.Arguments.ForName("id") != nil {
			return "The " + t + " with this id; null when there is none the caller may see."
		}
		return ""
	}
	for _, p := range []struct{ prefix, text string }{
		{"create", "Creates a " + t + " and returns it, read after the write."},
		{"update", "Changes the given fields of a " + t + " and returns it, read after the write."},
		{"rename", "Renames a " + t + " and returns it, read after the write."},
		{"add", "Adds to a " + t + " and returns it, read after the write."},
		{"delete", "Deletes the item and returns its id."},
	} {
		if strings.HasPrefix(f.Name, p.prefix) {
			return p.text
		}
	}
	return ""
}

// withoutFederation takes out of s what gqlgen's federation plugin adds to
// the schema it generates from (graph/schema/federation.graphqls and the
// plugin's own built-in sources): everything when federated is false, so
// that a server without --federation serves the schema it served before
// and refuses _entities and _service as unknown fields; only the plugin's
// code-generation scaffolding (the Entity type of its resolver methods and
// their *ByIDsInput inputs, which no field takes) when it is true.
func withoutFederation(s *ast.Schema, federated bool) {
	for name, def := range s.Types {
		switch {
		case !fromFederation(def.Position):
		case name == "Entity" || strings.HasSuffix(name, "ByIDsInput") || !federated:
			delete(s.Types, name)
			delete(s.PossibleTypes, name)
		}
	}
	if federated {
		return
	}
	for name, d := range s.Directives {
		if fromFederation(d.Position) {
			delete(s.Directives, name)
		}
	}
	q := s.Query
	q.Fields = slices.DeleteFunc(q.Fields, func(f *ast.FieldDefinition) bool { return fromFederation(f.Position) })
	for _, def := range s.Types {
		def.Directives = slices.DeleteFunc(def.Directives, func(d *ast.Directive) bool { return s.Directives[d.Name] == nil })
	}
	s.SchemaDirectives = slices.DeleteFunc(s.SchemaDirectives, func(d *ast.Directive) bool { return s.Directives[d.Name] == nil })
	for name, impls := range s.Implements {
		s.Implements[name] = slices.DeleteFunc(impls, func(d *ast.Definition) bool { return s.Types[d.Name] == nil })
	}
}

// fromFederation reports whether pos is in a source of the federation:
// the plugin's built-in sources (built in, but not gqlparser's prelude) or
// graph/schema/federation.graphqls.
func fromFederation(pos *ast.Position) bool {
	if pos == nil || pos.Src == nil {
		return false
	}
	return pos.Src.BuiltIn && pos.Src.Name != "prelude.graphql" || pos.Src.Name == "schema/federation.graphqls"
}
