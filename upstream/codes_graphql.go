package upstream

// Codes that only the GraphQL endpoint answers (CodeInfo.GraphQLOnly): the
// REST facade and the HTTP client never carry them. Their rows in the error
// table give their extensions.code; their names here are for the code that
// answers them (resolvers and its packages), which reads the extensions.code
// from the table (Code.GraphQL) instead of restating it.
const (
	CodeServerBusy              Code = "server_busy"               // the server's execution budget is spent (503, Retry-After)
	CodeGraphQLParseFailed      Code = "graphql_parse_failed"      // the document does not parse (gqlgen's code)
	CodeGraphQLValidationFailed Code = "graphql_validation_failed" // the document does not validate (gqlgen's code)
	CodePersistedQueryNotFound  Code = "persisted_query_not_found" // an automatic persisted query's hash is unknown (gqlgen's code)
	CodeIntrospectionDisabled   Code = "introspection_disabled"    // introspection on a server that has it off
	CodeDocumentNotTrusted      Code = "document_not_trusted"      // a document that is not registered, on a server that runs only trusted ones
	CodeUnknownDocument         Code = "unknown_document"          // a documentId no trusted document has
	CodeComplexityLimit         Code = "complexity_limit_exceeded" // the estimated cost over the limit (gqlgen's code)
	CodeDepthLimit              Code = "depth_limit_exceeded"      // the document nests deeper than the limit
	CodeFieldLimit              Code = "field_limit_exceeded"      // more fields than the limit
	CodeAliasLimit              Code = "alias_limit_exceeded"      // more aliases than the limit
	CodeDirectiveLimit          Code = "directive_limit_exceeded"  // more directives than the limit
	CodeOperationLimit          Code = "operation_limit_exceeded"  // more operations than the limit
	CodeFragmentLimit           Code = "fragment_limit_exceeded"   // more fragments than the limit
	CodeVariablesLimit          Code = "variables_limit_exceeded"  // variables with more JSON values than the limit
	CodeNodeLimit               Code = "node_limit_exceeded"       // the operation resolved more nodes than its budget
	CodeResponseTooLarge        Code = "response_too_large"        // the answer would be larger than its budget
	CodeTooManySubscriptions    Code = "too_many_subscriptions"    // a connection or token over its subscriptions
	CodeSlowConsumer            Code = "slow_consumer"             // a subscription whose client does not keep up
)
