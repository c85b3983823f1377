package resolvers

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// DepthLimit refuses, before execution, an operation whose selections nest
// deeper than Max fields. Introspection fields (__schema, __type) are not
// counted: their depth is bounded by the schema, and GraphiQL's
// introspection query is deep.
type DepthLimit struct{ Max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = DepthLimit{}

// ExtensionName implements graphql.HandlerExtension.
func (DepthLimit) ExtensionName() string { return "DepthLimit" }

// Validate implements graphql.HandlerExtension.
func (DepthLimit) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext implements graphql.OperationContextMutator.
func (d DepthLimit) MutateOperationContext(ctx context.Context, op *graphql.OperationContext) *gqlerror.Error {
	if op.Operation == nil {
		return nil
	}
	depth := selectionDepth(op.Doc, op.Operation.SelectionSet, map[string]bool{})
	if depth > d.Max {
		err := gqlerror.Errorf("operation has depth %d, which exceeds the limit of %d", depth, d.Max)
		err.Extensions = map[string]any{"code": CodeDepthLimit, "depth": depth, "limit": d.Max}
		return err
	}
	return nil
}

func selectionDepth(doc *ast.QueryDocument, set ast.SelectionSet, visiting map[string]bool) int {
	best := 0
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			d = 1 + selectionDepth(doc, s.SelectionSet, visiting)
		case *ast.InlineFragment:
			d = selectionDepth(doc, s.SelectionSet, visiting)
		case *ast.FragmentSpread:
			if visiting[s.Name] { // cycles are a validation error anyway
				continue
			}
			f := doc.Fragments.ForName(s.Name)
			if f == nil {
				continue
			}
			visiting[s.Name] = true
			d = selectionDepth(doc, f.SelectionSet, visiting)
			delete(visiting, s.Name)
		}
		best = max(best, d)
	}
	return best
}
