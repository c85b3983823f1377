package rest_test

import (
	"os"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestMain runs the package's tests on SQLite and, when
// OKRGATE_TEST_POSTGRES is set, again on PostgreSQL.
func TestMain(m *testing.M) { os.Exit(sqlstoretest.Main(m)) }
