package sqlstore_test

import (
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/upstream/apitest"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// TestAPIContract runs the contract suite of upstream.API against the store
// on a real SQLite file, one fresh file per test, and on PostgreSQL (a
// fresh schema per test) in the PostgreSQL run of sqlstoretest.Main.
//
// Every statement the suite makes the store run is checked to constrain
// the account of the account tables it names (TestStatementsScopedByAccount
// drives the rest of the store the same way).
func TestAPIContract(t *testing.T) {
	var c sqlstoretest.ScopeChecker
	observe := sqlstore.WithStatementObserver(c.Observe)
	t.Run("suite", func(t *testing.T) {
		apitest.Run(t, func(t *testing.T) apitest.Env { return contractEnv(t, observe) })
	})
	c.Check(t, 1000)
}

// contractEnv is a store of its own with the suite's two accounts and users.
func contractEnv(t *testing.T, opts ...sqlstore.Option) apitest.Env {
	t.Helper()
	return sqlstoretest.ContractEnv(t, sqlstoretest.Open(t, opts...))
}
