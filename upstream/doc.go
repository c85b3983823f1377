// Package upstream is the documented OKR REST API expressed as a Go contract:
// the resource types with their JSON names exactly as the contract spells
// them, the API interface whose methods are the documented (or designed)
// operations, the domain errors with stable codes, the list query, and the
// business rules (attainment, aggregation, tag identity, mention formatting)
// as pure functions.
//
// Three kinds of code implement or consume API: sqlstore serves it from SQL,
// client forwards it to a remote server of the REST API (gateway mode), and
// rest and the GraphQL resolvers expose it over HTTP. None of them talk to
// each other directly.
package upstream
