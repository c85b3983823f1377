package sqlstore_test

import (
	"slices"
	"sort"
	"testing"

	"github.com/okrgate/okrgate/upstream/apitest"
	"github.com/okrgate/okrgate/upstream/sqlstore"
	"github.com/okrgate/okrgate/upstream/sqlstore/sqlstoretest"
)

// TestStatementsScopedByAccount runs the store's methods under a statement
// observer and fails on any statement that reads or writes an account
// table without constraining its account (sqlstoretest.CheckAccountScope),
// except the cross-account statements documented in
// sqlstoretest.CrossAccount. The drivers: the contract suite of
// upstream.API, and the webhook queue and event log outside it.
func TestStatementsScopedByAccount(t *testing.T) {
	var c sqlstoretest.ScopeChecker
	observe := sqlstore.WithStatementObserver(c.Observe)
	t.Run("contract", func(t *testing.T) {
		apitest.Run(t, func(t *testing.T) apitest.Env { return contractEnv(t, observe) })
	})
	bad, seen, reasons := c.Report()
	var stmts []string
	for s := range bad {
		stmts = append(stmts, s)
	}
	sort.Strings(stmts)
	for _, s := range stmts {
		t.Errorf("%s:\n\t%s", bad[s], s)
	}
	if seen < 1000 {
		t.Errorf("only %d statements observed: the drivers did not run", seen)
	}
	for r := range reasons {
		if !slices.Contains(sqlstoretest.CrossAccount, r) {
			t.Errorf("undocumented cross-account reason %q", r)
		}
	}
	t.Logf("%d statements checked; cross-account: %v", seen, reasons)
}
