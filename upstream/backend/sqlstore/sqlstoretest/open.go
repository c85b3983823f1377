package sqlstoretest

import (
	"context"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"
)

// EnvPostgres names the environment variable with the URL of a PostgreSQL
// database where tests create throwaway schemas.
const EnvPostgres = testdb.EnvPostgres

// Open opens a store of its own for t, closed when t ends: on SQLite a new
// file in t.TempDir(); in the PostgreSQL run of Main a new schema. Tests
// open their stores with it rather than with sqlstore.Open so that they run
// on both databases.
func Open(t testing.TB, opts ...sqlstore.Option) *sqlstore.Store {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), DSN(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// DSN returns a fresh database for t, as Open uses it: a SQLite file path or
// a PostgreSQL URL. A test that reopens its store (a restart) opens DSN
// again.
func DSN(t testing.TB) string {
	t.Helper()
	return testdb.DSN(t, "okr.db")
}

// Postgres reports whether the store tests of this process run on
// PostgreSQL.
func Postgres() bool { return testdb.Postgres() }

// Main runs a package's tests on SQLite and, when OKRGATE_TEST_POSTGRES is
// set, once more on PostgreSQL (testdb.Main). Use it as TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(sqlstoretest.Main(m)) }
func Main(m *testing.M) int { return testdb.Main(m) }

// PostgresURL returns a URL to a new, empty schema in the database of
// OKRGATE_TEST_POSTGRES, dropped when t ends, or skips t with a message
// saying how to set the variable: for tests that need PostgreSQL whatever
// the run (several processes on one database, migrations on a new one).
func PostgresURL(t testing.TB) string {
	t.Helper()
	u, drop, err := testdb.NewSchema(testdb.AdminURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return u
}

// SharedDSN returns a database for a fixture that outlives one test (on
// SQLite the file name in dir, on PostgreSQL a new schema) and a function
// that drops it once the fixture's store is closed.
func SharedDSN(dir, name string) (dsn string, drop func() error, err error) {
	return testdb.SharedDSN(dir, name)
}

// Citus reports whether the store tests of this process run on a Citus
// coordinator (OKRGATE_TEST_CITUS), where the store distributes its
// tables by account.
func Citus() bool { return testdb.Citus() }
