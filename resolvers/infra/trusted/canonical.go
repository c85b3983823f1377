package trusted

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

// Canonical prints doc in one form, whatever its source's spacing, commas,
// comments and descriptions, the order of its selections, arguments,
// directives, variables and definitions, and without the __typename fields
// that clients add on their own (Apollo Client's cache adds one to every
// selection set): a client may send a registered document as it prints
// it, not byte for byte as it was registered. graphql-codegen's client
// preset registers each document with its selections sorted
// (persisted-documents.json, printed by @graphql-tools/documents'
// printExecutableGraphQLDocument) while the client sends it as written;
// both have one canonical form. Order that changes what runs is kept: the
// root fields of a mutation run one after the other, so a mutation's root
// selections (and those of a fragment on the type named Mutation) keep
// their order. __typename reads nothing.
func Canonical(doc *ast.QueryDocument) string {
	out := &ast.QueryDocument{}
	for _, op := range doc.Operations {
		o := *op
		o.VariableDefinitions = slices.Clone(op.VariableDefinitions)
		slices.SortStableFunc(o.VariableDefinitions, func(a, b *ast.VariableDefinition) int { return cmp.Compare(a.Variable, b.Variable) })
		o.Directives = sortedDirectives(op.Directives)
		o.SelectionSet = canonicalSet(op.SelectionSet, op.Operation == ast.Mutation)
		out.Operations = append(out.Operations, &o)
	}
	for _, f := range doc.Fragments {
		c := *f
		c.Directives = sortedDirectives(f.Directives)
		c.SelectionSet = canonicalSet(f.SelectionSet, f.TypeCondition == "Mutation")
		out.Fragments = append(out.Fragments, &c)
	}
	slices.SortStableFunc(out.Operations, func(a, b *ast.OperationDefinition) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortStableFunc(out.Fragments, func(a, b *ast.FragmentDefinition) int { return cmp.Compare(a.Name, b.Name) })
	var buf bytes.Buffer
	formatter.NewFormatter(&buf, formatter.WithCompacted()).FormatQueryDocument(out)
	return buf.String()
}

// canonicalSet copies set without its plain __typename fields (no alias,
// no directives), its arguments and directives sorted by name, its
// selections sorted unless serial (a mutation's root), recursively; doc's
// own nodes are not changed (a parsed document is shared through the
// query cache).
func canonicalSet(set ast.SelectionSet, serial bool) ast.SelectionSet {
	out := make(ast.SelectionSet, 0, len(set))
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			if s.Name == "__typename" && (s.Alias == "" || s.Alias == s.Name) && len(s.Directives) == 0 {
				continue
			}
			f := *s
			if f.Alias == f.Name {
				f.Alias = ""
			}
			f.Arguments = slices.Clone(s.Arguments)
			slices.SortStableFunc(f.Arguments, func(a, b *ast.Argument) int { return cmp.Compare(a.Name, b.Name) })
			f.Directives = sortedDirectives(s.Directives)
			f.SelectionSet = canonicalSet(s.SelectionSet, false)
			out = append(out, &f)
		case *ast.InlineFragment:
			f := *s
			f.Directives = sortedDirectives(s.Directives)
			f.SelectionSet = canonicalSet(s.SelectionSet, serial)
			out = append(out, &f)
		case *ast.FragmentSpread:
			f := *s
			f.Directives = sortedDirectives(s.Directives)
			out = append(out, &f)
		default:
			out = append(out, s)
		}
	}
	if !serial {
		slices.SortStableFunc(out, func(a, b ast.Selection) int { return cmp.Compare(selectionKey(a), selectionKey(b)) })
	}
	return out
}

// selectionKey orders the selections of a canonical set: fields by name,
// alias and arguments, then fragment spreads by name, then inline
// fragments by type condition, directives and content.
func selectionKey(s ast.Selection) string {
	var b strings.Builder
	switch s := s.(type) {
	case *ast.Field:
		b.WriteString("0" + s.Name + " " + s.Alias)
		for _, a := range s.Arguments {
			b.WriteString(" " + a.Name + ":" + a.Value.String())
		}
		writeDirectives(&b, s.Directives)
	case *ast.FragmentSpread:
		b.WriteString("1" + s.Name)
		writeDirectives(&b, s.Directives)
	case *ast.InlineFragment:
		b.WriteString("2" + s.TypeCondition)
		writeDirectives(&b, s.Directives)
		b.WriteString("{")
		for _, c := range s.SelectionSet {
			b.WriteString(selectionKey(c) + ",")
		}
		b.WriteString("}")
	}
	return b.String()
}

func writeDirectives(b *strings.Builder, ds ast.DirectiveList) {
	for _, d := range ds {
		b.WriteString(" @" + d.Name)
		for _, a := range d.Arguments {
			b.WriteString(" " + a.Name + ":" + a.Value.String())
		}
	}
}

// sortedDirectives copies ds sorted by name, each with its arguments
// sorted by name.
func sortedDirectives(ds ast.DirectiveList) ast.DirectiveList {
	if len(ds) == 0 {
		return ds
	}
	out := make(ast.DirectiveList, len(ds))
	for i, d := range ds {
		c := *d
		c.Arguments = slices.Clone(d.Arguments)
		slices.SortStableFunc(c.Arguments, func(a, b *ast.Argument) int { return cmp.Compare(a.Name, b.Name) })
		out[i] = &c
	}
	slices.SortStableFunc(out, func(a, b *ast.Directive) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
