package rest_test

import (
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/sqlstore"
	"github.com/okrgate/okrgate/upstream/sqlstore/sqlstoretest"
)

// TestContractWalkScopedByAccount walks every route as TestContractWalk
// does (the OKR core, organisation, content, the gateway's reads,
// webhooks), with every statement the store runs checked to constrain the
// account of each account table it names (sqlstoretest.CheckAccountScope);
// docs/decisions.md, "Every statement names its account".
func TestContractWalkScopedByAccount(t *testing.T) {
	var c sqlstoretest.ScopeChecker
	e := newEnvWith(t, func(s *sqlstore.Store) upstream.API { return s }, sqlstore.WithStatementObserver(c.Observe))
	s := e.seed()
	walkCore(t, e, s)
	walkOrg(t, e)
	walkContent(t, e, s)
	walkGateway(t, e, s)
	walkWebhooks(t, e)
	c.Check(t, 1000)
}
