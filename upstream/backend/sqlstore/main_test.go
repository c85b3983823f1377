package sqlstore

import (
	"os"
	"testing"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/testdb"
)

// TestMain runs the package's tests on SQLite and, when
// OKRGATE_TEST_POSTGRES is set, again on PostgreSQL.
func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }
