package limits

import (
	"context"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/okrgate/okrgate/upstream"
)

// Codes (extensions.code) of the errors of a document over a limit; each
// error also says the count and the limit. They are rows of the error
// table (upstream.Codes).
var (
	CodeFieldsLimit     = upstream.CodeFieldLimit.GraphQL()
	CodeAliasesLimit    = upstream.CodeAliasLimit.GraphQL()
	CodeDirectivesLimit = upstream.CodeDirectiveLimit.GraphQL()
	CodeOperationsLimit = upstream.CodeOperationLimit.GraphQL()
	CodeFragmentsLimit  = upstream.CodeFragmentLimit.GraphQL()
	CodeVariablesLimit  = upstream.CodeVariablesLimit.GraphQL()
	CodeDepthLimit      = upstream.CodeDepthLimit.GraphQL()
)

// DocumentLimits are the cheap limits: checked on the parsed document before
// gqlgen's validator, complexity calculation or any resolver runs, so a
// refused document costs one parse and one linear walk (microseconds to a
// few milliseconds), never validation. Counts are of the document with every
// fragment spread expanded in place, computed once per fragment, so a
// fragment used 8 times at each of 6 levels counts 8⁶ times without being
// walked 8⁶ times. Zero fields mean no limit.
type DocumentLimits struct {
	Tokens     int // lexer tokens of the document (the parser stops at the limit)
	Fields     int // field selections, aliases and __typename included, fragments expanded
	Aliases    int // aliased field selections, fragments expanded
	Directives int // directive uses, fragments expanded
	Operations int // operations in one document (the validator checks them all)
	Fragments  int // fragment definitions in one document
	Depth      int // nested field selections (the subtrees of __schema and __type not counted)
	Variables  int // JSON values in the request's variables, nested values included

	// Cache is the executor's cache of validated documents: a query found
	// there passed these limits before and is not parsed again.
	Cache graphql.Cache[*ast.QueryDocument]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = DocumentLimits{}

// ExtensionName implements graphql.HandlerExtension.
func (DocumentLimits) ExtensionName() string { return "DocumentLimits" }

// Validate implements graphql.HandlerExtension.
func (DocumentLimits) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters implements graphql.OperationParameterMutator. It
// runs after automatic persisted queries have filled in the query text and
// before the executor parses and validates it.
func (l DocumentLimits) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if l.Variables > 0 {
		if n := countValues(p.Variables, l.Variables+1); n > l.Variables {
			err := gqlerror.Errorf("the variables hold more than %d JSON values, the limit", l.Variables)
			err.Extensions = map[string]any{"code": CodeVariablesLimit, "limit": l.Variables}
			return err
		}
	}
	if p.Query == "" {
		return nil // the executor answers "no operation provided"
	}
	if l.Cache != nil {
		if _, ok := l.Cache.Get(ctx, p.Query); ok {
			return nil
		}
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, l.Tokens)
	if err != nil {
		gerr, ok := err.(*gqlerror.Error)
		if !ok {
			gerr = gqlerror.Wrap(err)
		}
		errcode.Set(gerr, errcode.ParseFailed)
		return gerr
	}
	return l.Check(doc)
}

// Check applies the limits to a parsed document: the operation and fragment
// counts first, then the expanded counts of every operation.
func (l DocumentLimits) Check(doc *ast.QueryDocument) *gqlerror.Error {
	if l.Operations > 0 && len(doc.Operations) > l.Operations {
		return limitError(CodeOperationsLimit, "operations", len(doc.Operations), l.Operations)
	}
	if l.Fragments > 0 && len(doc.Fragments) > l.Fragments {
		return limitError(CodeFragmentsLimit, "fragment definitions", len(doc.Fragments), l.Fragments)
	}
	c := counter{doc: doc, frags: make(map[string]*shape, len(doc.Fragments))}
	for _, op := range doc.Operations {
		s, err := c.set(op.SelectionSet)
		if err != nil {
			return err
		}
		s.directives = satAdd(s.directives, len(op.Directives))
		for _, v := range op.VariableDefinitions {
			s.directives = satAdd(s.directives, len(v.Directives))
		}
		for _, lim := range []struct {
			code, what string
			n, max     int
		}{
			{CodeAliasesLimit, "aliases", s.aliases, l.Aliases},
			{CodeFieldsLimit, "fields", s.fields, l.Fields},
			{CodeDirectivesLimit, "directives", s.directives, l.Directives},
			{CodeDepthLimit, "depth", s.depth, l.Depth},
		} {
			if lim.max > 0 && lim.n > lim.max {
				return limitError(lim.code, lim.what, lim.n, lim.max)
			}
		}
	}
	return nil
}

func limitError(code, what string, n, limit int) *gqlerror.Error {
	err := gqlerror.Errorf("the document has %s %s, which exceeds the limit of %d", count(n), what, limit)
	if what == "depth" {
		err = gqlerror.Errorf("operation has depth %s, which exceeds the limit of %d", count(n), limit)
	}
	err.Extensions = map[string]any{"code": code, "count": n, "limit": limit}
	return err
}

// count prints a saturated count as "more than …".
func count(n int) string {
	if n >= satMax {
		return fmt.Sprintf("more than %d", satMax)
	}
	return fmt.Sprint(n)
}

// shape is what a selection set holds once its fragments are expanded.
type shape struct {
	fields, aliases, directives, depth int
	done                               bool // false while being computed: a cycle
}

// satMax caps counts so that an exploding document cannot overflow them.
const satMax = 1 << 40

func satAdd(a, b int) int { return min(a+b, satMax) }

// counter computes shapes, memoising fragments by name.
type counter struct {
	doc   *ast.QueryDocument
	frags map[string]*shape
}

func (c *counter) set(set ast.SelectionSet) (shape, *gqlerror.Error) {
	var out shape
	for _, sel := range set {
		var s shape
		switch sel := sel.(type) {
		case *ast.Field:
			inner, err := c.set(sel.SelectionSet)
			if err != nil {
				return out, err
			}
			s = inner
			s.fields = satAdd(s.fields, 1)
			if sel.Alias != "" && sel.Alias != sel.Name {
				s.aliases = satAdd(s.aliases, 1)
			}
			s.directives = satAdd(s.directives, len(sel.Directives))
			if strings.HasPrefix(sel.Name, "__") {
				// Introspection's depth is bounded by the schema and by the
				// validator's MaxIntrospectionDepth rule; GraphiQL's
				// introspection query nests 14 deep.
				s.depth = 0
			} else {
				s.depth++
			}
		case *ast.InlineFragment:
			inner, err := c.set(sel.SelectionSet)
			if err != nil {
				return out, err
			}
			s = inner
			s.directives = satAdd(s.directives, len(sel.Directives))
		case *ast.FragmentSpread:
			inner, err := c.fragment(sel.Name)
			if err != nil {
				return out, err
			}
			s = inner
			s.directives = satAdd(s.directives, len(sel.Directives))
		}
		out.fields = satAdd(out.fields, s.fields)
		out.aliases = satAdd(out.aliases, s.aliases)
		out.directives = satAdd(out.directives, s.directives)
		out.depth = max(out.depth, s.depth)
	}
	out.done = true
	return out, nil
}

func (c *counter) fragment(name string) (shape, *gqlerror.Error) {
	if s, ok := c.frags[name]; ok {
		if !s.done {
			err := gqlerror.Errorf("cannot spread fragment %q within itself", name)
			errcode.Set(err, errcode.ValidationFailed)
			return shape{}, err
		}
		return *s, nil
	}
	f := c.doc.Fragments.ForName(name)
	if f == nil {
		return shape{done: true}, nil // the validator reports the unknown fragment
	}
	s := &shape{}
	c.frags[name] = s
	inner, err := c.set(f.SelectionSet)
	if err != nil {
		return shape{}, err
	}
	inner.directives = satAdd(inner.directives, len(f.Directives))
	*s = inner
	return inner, nil
}

// countValues counts the JSON values in vars (1 for a scalar, 1 plus its
// elements for a list or object), stopping once stop is reached.
func countValues(vars map[string]any, stop int) int {
	n := 0
	var walk func(any)
	walk = func(v any) {
		if n >= stop {
			return
		}
		n++
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, e := range vars {
		walk(e)
	}
	return n
}
