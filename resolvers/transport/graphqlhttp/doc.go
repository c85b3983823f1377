// Package graphqlhttp serves the GraphQL API over HTTP: NewHandler is the
// /graphql endpoint (method and CSRF checks, body limit, timeout, bearer
// authentication by package authn, fresh loaders per request) around
// NewServer, the gqlgen server of package resolvers' executable schema
// with its transports (POST and GET as the GraphQL over HTTP
// specification says, multipart/mixed for @defer, and the live transports
// of live.Hub), the limits of package limits, automatic persisted
// queries and trusted documents, tracing and Prometheus metrics (Metrics).
//
// docs/graphql.md describes the endpoint; docs/graphql.md ("Limits") its
// limits and their defaults (Config).
package graphqlhttp
