package graph

import "github.com/vektah/gqlparser/v2/ast"

// Sources returns the schema files the executor was generated from
// (graph/schema/*.graphqls, embedded), for code that builds its own copy
// of the schema (the resolvers fill in descriptions).
func Sources() []*ast.Source {
	out := make([]*ast.Source, len(sources))
	for i, s := range sources {
		c := *s
		out[i] = &c
	}
	return out
}
