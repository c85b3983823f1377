package main

import (
	"flag"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/resolvers/infra/respcache"
	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// graphqlLimitFlags defines the serve flags of the GraphQL limits
// (docs/graphql.md, "Limits") on fs; apply copies the parsed values into a
// graphqlhttp.Config. Zero keeps a limit's default.
func graphqlLimitFlags(fs *flag.FlagSet) (apply func(*graphqlhttp.Config)) {
	tokens := fs.Int("graphql-max-tokens", graphqlhttp.DefaultParserTokenLimit, "GraphQL: lexer tokens per document")
	fields := fs.Int("graphql-max-fields", graphqlhttp.DefaultMaxFields, "GraphQL: field selections per operation, fragments expanded")
	aliases := fs.Int("graphql-max-aliases", graphqlhttp.DefaultMaxAliases, "GraphQL: aliased fields per operation, fragments expanded")
	directives := fs.Int("graphql-max-directives", graphqlhttp.DefaultMaxDirectives, "GraphQL: directive uses per operation, fragments expanded")
	operations := fs.Int("graphql-max-operations", graphqlhttp.DefaultMaxOperations, "GraphQL: operations per document")
	fragments := fs.Int("graphql-max-fragments", graphqlhttp.DefaultMaxFragments, "GraphQL: fragment definitions per document")
	variables := fs.Int("graphql-max-variables", graphqlhttp.DefaultMaxVariables, "GraphQL: JSON values in a request's variables")
	depth := fs.Int("graphql-max-depth", graphqlhttp.DefaultMaxDepth, "GraphQL: nested fields per operation")
	cost := fs.Int("graphql-max-cost", graphqlhttp.DefaultMaxComplexity, "GraphQL: estimated cost per operation (docs/graphql.md)")
	nodes := fs.Int("graphql-max-nodes", graphqlhttp.DefaultMaxNodes, "GraphQL: fields and list elements resolved per operation")
	inFlight := fs.Int("graphql-max-nodes-in-flight", graphqlhttp.DefaultMaxNodesInFlight, "GraphQL: nodes of all operations executing at once (503 beyond)")
	respBytes := fs.Int("graphql-max-response-bytes", graphqlhttp.DefaultMaxResponseBytes, "GraphQL: `bytes` of JSON per answer")
	body := fs.Int64("graphql-max-body-bytes", graphqlhttp.DefaultMaxBodyBytes, "GraphQL: request body `bytes`")
	lifetime := fs.Duration("graphql-ws-max-lifetime", live.DefaultMaxConnLifetime, "GraphQL: longest life of a websocket; then the server closes it (1001, \"connection lifetime reached: reconnect\") and the client reconnects")
	return func(c *graphqlhttp.Config) {
		c.ParserTokenLimit, c.MaxFields, c.MaxAliases, c.MaxDirectives = *tokens, *fields, *aliases, *directives
		c.MaxOperations, c.MaxFragments, c.MaxVariables, c.MaxNodesInFlight = *operations, *fragments, *variables, *inFlight
		c.MaxDepth, c.MaxComplexity, c.MaxNodes, c.MaxResponseBytes, c.MaxBodyBytes = *depth, *cost, *nodes, *respBytes, *body
		c.MaxConnLifetime = *lifetime
	}
}

// graphqlCacheFlags defines the serve flags of shared GraphQL answers
// (docs/graphql-execution.md, "Shared answers") on fs; apply sets
// cfg.Shared over the local store, with its metrics on reg. Gateway mode
// (no local store) shares nothing: the upstream's data version is not
// known.
func graphqlCacheFlags(fs *flag.FlagSet) (apply func(cfg *graphqlhttp.Config, store *sqlstore.Store, reg prometheus.Registerer) error) {
	on := fs.Bool("graphql-cache", true, "GraphQL: share the answers of identical queries between callers of one visibility class, kept until the account's next write (--graphql-cache=false executes every query for its caller)")
	size := fs.Int64("graphql-cache-bytes", respcache.DefaultMaxBytes, "GraphQL: `bytes` of shared answers kept (least recently used dropped first)")
	derive := fs.Bool("graphql-derive", true, "GraphQL: after check-ins, derive a shared answer from the previous answer of its query and class, reading again only what they changed (docs/graphql-execution.md; --graphql-derive=false executes it in full)")
	return func(cfg *graphqlhttp.Config, store *sqlstore.Store, reg prometheus.Registerer) error {
		if !*on || store == nil {
			return nil
		}
		cache, err := respcache.New(respcache.Config{MaxBytes: *size, Registerer: reg})
		if err != nil {
			return fmt.Errorf("graphql cache: %w", err)
		}
		cfg.Shared = &graphqlhttp.Shared{Cache: cache, Scoper: respcache.NewScoper(store, store), Full: !*derive}
		return nil
	}
}
