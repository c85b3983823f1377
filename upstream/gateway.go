package upstream

// Gateway mode: okrgate serves the GraphQL API (and the REST facade) over a
// remote server of the REST API instead of a local store (upstream/backend/client,
// docs/gateway.md). The remote server decides everything, authorization
// included; the gateway forwards the caller's credentials.

// CodeUnavailable reports that the upstream server of a gateway could not
// answer: a network failure, a timeout, an upstream 5xx, or the circuit
// breaker open after repeated failures. It is not the caller's fault and is
// not an internal error of the gateway; REST answers it 503, GraphQL
// UPSTREAM_UNAVAILABLE.
const CodeUnavailable Code = "upstream_unavailable"

// Whoami is the answer of GET /api/v2/users/me: the caller a bearer token
// stands for, so that a gateway authenticates against its upstream.
type Whoami struct {
	UserID    string   `json:"userId"`
	AccountID string   `json:"accountId"`
	Roles     []string `json:"roles"`
	TokenID   string   `json:"tokenId,omitempty"`
	Scopes    []Scope  `json:"scopes,omitempty"`
	// User is the caller's user record.
	User *User `json:"user,omitempty"`
}

// Caller returns the caller w describes, carrying token.
func (w Whoami) Caller(token string) Caller {
	return Caller{AccountID: w.AccountID, UserID: w.UserID, Roles: w.Roles, Token: token, TokenID: w.TokenID, Scopes: w.Scopes}
}
