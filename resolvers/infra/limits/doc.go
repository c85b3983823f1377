// Package limits bounds what one GraphQL operation, and all of them at
// once, may cost the server: the cheap limits of a parsed document
// (DocumentLimits), the estimated cost of its fields (SetComplexity), the
// nodes and bytes it may resolve while it executes and the nodes of all
// operations in flight (Budget), the admission control and timeout of a
// query or mutation (Admission), and the length of the text a mutation
// stores (MutationText).
//
// Each is a gqlgen extension or middleware that package graphqlhttp
// installs on the server; none knows of HTTP or of the resolvers.
// docs/graphql.md ("Limits") says why each bound is what it is.
package limits
