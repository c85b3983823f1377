// Package testdb gives each test of the SQL store a database of its own:
// a SQLite file in the test's temporary directory, or a throwaway schema
// in the PostgreSQL database named by OKRGATE_TEST_POSTGRES. Main runs a
// package's tests on both. It does not import the store, so the store's own
// (internal) tests can use it; sqlstoretest builds on it for the rest.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvPostgres names the environment variable holding the URL of a
// PostgreSQL database in which tests may create and drop schemas, e.g.
// postgres://okrgate:okrgate@127.0.0.1:5432/okrgate?sslmode=disable.
const EnvPostgres = "OKRGATE_TEST_POSTGRES"

// EnvCitus names the environment variable holding the URL of a database
// on a Citus coordinator (the citus extension created, workers added), in
// which tests may create and drop schemas. Main then runs a package's tests
// a third time, on Citus: every table distributed by account.
const EnvCitus = "OKRGATE_TEST_CITUS"

// EnvCitusOnly, set to 1 beside OKRGATE_TEST_CITUS, makes Main run a
// package's tests on Citus alone: for CI, whose earlier step ran them on
// SQLite and PostgreSQL.
const EnvCitusOnly = "OKRGATE_TEST_CITUS_ONLY"

// citusShardCount is the number of shards of a test's tables on Citus:
// two per worker of a two-worker cluster, so that accounts spread over
// both, and fewer shards to create for each test's schema than Citus's
// default, 32.
const citusShardCount = "4"

// envDialect is set to "postgres" or "citus" in the child processes Main
// starts.
const envDialect = "OKRGATE_TEST_DIALECT"

// SkipMessage says how to run the PostgreSQL side of the tests.
const SkipMessage = "PostgreSQL tests skipped: set " + EnvPostgres +
	"=postgres://USER:PASSWORD@HOST:5432/DB?sslmode=disable (a role that may create schemas) to run them"

// Postgres reports whether this process runs the store's tests on
// PostgreSQL (the child of Main), Citus included.
func Postgres() bool { d := os.Getenv(envDialect); return d == "postgres" || d == "citus" }

// Citus reports whether this process runs the store's tests on a Citus
// coordinator (the child of Main for OKRGATE_TEST_CITUS).
func Citus() bool { return os.Getenv(envDialect) == "citus" }

// AdminURL returns the URL of OKRGATE_TEST_POSTGRES, or skips t with
// SkipMessage when it is not set.
func AdminURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvPostgres)
	if u == "" {
		t.Skip(SkipMessage)
	}
	return u
}

// DSN returns the database of one test: on SQLite a new file named name
// in t's temporary directory; on PostgreSQL (Postgres) a new schema,
// dropped when the test ends, as a URL whose search_path selects it.
func DSN(t testing.TB, name string) string {
	t.Helper()
	// Read in every run, so the go command's test cache keys on it.
	_ = os.Getenv(EnvPostgres)
	if !Postgres() {
		return filepath.Join(t.TempDir(), name)
	}
	return Schema(t)
}

// Schema creates a throwaway schema in the database of OKRGATE_TEST_POSTGRES
// (skipping t when it is not set) and returns a URL that uses it. The
// schema is dropped when t ends, after the cleanups registered later (a
// store opened on it closes first).
//
// Creating and migrating a schema costs far more than emptying one, so a
// schema whose test has ended is emptied (every table but goose's
// truncated) and handed to the next test of the process; Main drops the
// spare ones at the end.
func Schema(t testing.TB) string {
	t.Helper()
	admin := AdminURL(t)
	schema := spare.take()
	if schema == "" {
		var err error
		if schema, err = newSchema(admin); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if !Postgres() { // no Main to drop spare schemas at the end
			if err := exec1(admin, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
				t.Error(err)
			}
			return
		}
		if err := empty(admin, schema); err != nil {
			t.Logf("schema %s not reused: %v", schema, err)
			if err := exec1(admin, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
				t.Error(err)
			}
			return
		}
		spare.put(schema)
	})
	return WithSearchPath(admin, schema)
}

// spare holds the emptied schemas of ended tests, for the next ones.
var spare schemaPool

type schemaPool struct {
	mu      sync.Mutex
	schemas []string
}

func (p *schemaPool) take() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.schemas) == 0 {
		return ""
	}
	s := p.schemas[len(p.schemas)-1]
	p.schemas = p.schemas[:len(p.schemas)-1]
	return s
}

func (p *schemaPool) put(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.schemas = append(p.schemas, s)
}

// drain drops the spare schemas.
func (p *schemaPool) drain(admin string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, s := range p.schemas {
		errs = append(errs, exec1(admin, "DROP SCHEMA "+s+" CASCADE"))
	}
	p.schemas = nil
	return errors.Join(errs...)
}

// empty truncates every table of schema but goose's version table, which
// keeps the schema migrated. It gives up rather than wait for a lock (a
// store left open).
func empty(admin, schema string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'goose_db_version'", schema)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		tables = append(tables, schema+"."+name)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(tables) == 0 {
		return nil
	}
	if _, err := conn.Exec(ctx, "SET lock_timeout = '5s'"); err != nil {
		return err
	}
	if Citus() {
		return deleteAll(ctx, conn, schema, tables)
	}
	_, err = conn.Exec(ctx, "TRUNCATE "+strings.Join(tables, ", "))
	return err
}

// deleteAll empties tables, those of schema, on Citus, where TRUNCATE of
// distributed tables takes seconds and DELETE a fraction of one: one
// transaction, each table before the tables it references.
func deleteAll(ctx context.Context, conn *pgx.Conn, schema string, tables []string) error {
	rows, err := conn.Query(ctx, `SELECT c.relname FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r'
		ORDER BY c.relname = 'accounts', EXISTS (SELECT 1 FROM pg_constraint k
			WHERE k.contype = 'f' AND k.confrelid = c.oid AND k.conrelid <> c.oid AND k.confrelid <> k.conrelid), c.relname`, schema)
	if err != nil {
		return err
	}
	order, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	batch := &pgx.Batch{}
	batch.Queue("BEGIN")
	for _, t := range order {
		if slices.Contains(tables, schema+"."+t) {
			batch.Queue("DELETE FROM " + schema + "." + t)
		}
	}
	batch.Queue("COMMIT")
	return conn.SendBatch(ctx, batch).Close()
}

// exec1 runs one statement on a connection of its own to admin.
func exec1(admin, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

// newSchema creates a schema with a fresh name in the database of admin.
func newSchema(admin string) (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	schema := "okrgate_test_" + hex.EncodeToString(b)
	if err := exec1(admin, "CREATE SCHEMA "+schema); err != nil {
		return "", fmt.Errorf("create schema: %w", err)
	}
	return schema, nil
}

// NewSchema creates a throwaway schema in the database of admin and returns
// a URL that uses it, and a function that drops it: for databases that
// outlive one test (fixtures shared by a package's tests).
func NewSchema(admin string) (url string, drop func() error, err error) {
	schema, err := newSchema(admin)
	if err != nil {
		return "", nil, err
	}
	drop = func() error {
		if err := exec1(admin, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			return fmt.Errorf("drop schema %s: %w", schema, err)
		}
		return nil
	}
	return WithSearchPath(admin, schema), drop, nil
}

// SharedDSN returns a database that outlives a test, for a fixture shared
// by a package's tests: on SQLite the file name in dir; on PostgreSQL a new
// schema. drop removes the schema (nothing on SQLite: dir goes with it).
func SharedDSN(dir, name string) (dsn string, drop func() error, err error) {
	_ = os.Getenv(EnvPostgres)
	if !Postgres() {
		return filepath.Join(dir, name), func() error { return nil }, nil
	}
	return NewSchema(os.Getenv(EnvPostgres))
}

// WithSearchPath returns the URL u with its search_path set to schema.
// On Citus (Citus) the URL also sets the number of shards of the tables
// the store distributes.
func WithSearchPath(u, schema string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	u += sep + "search_path=" + schema
	if Citus() {
		u += "&citus.shard_count=" + citusShardCount
	}
	return u
}

// Main runs the tests of a package on SQLite and, when
// OKRGATE_TEST_POSTGRES is set, on PostgreSQL at the same time in a child
// process of the same test binary with the same flags (its output follows
// SQLite's, whole): every test that opens its store through DSN (or
// sqlstoretest.Open) covers both. The two runs share nothing but the
// machine, and a PostgreSQL run spends most of its time waiting on the
// server, so running them together shortens the package's run by about
// the shorter of the two. Use it as a package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }
func Main(m *testing.M) int {
	if !Postgres() && os.Getenv(EnvCitus) != "" && os.Getenv(EnvCitusOnly) == "1" {
		fmt.Println("=== RUN on Citus alone (" + EnvCitusOnly + " is set)")
		if err := rerun("citus", os.Getenv(EnvCitus)); err != nil {
			fmt.Println("FAIL on Citus:", err)
			return 1
		}
		return 0
	}
	var pg *child
	if !Postgres() && os.Getenv(EnvPostgres) != "" {
		var err error
		if pg, err = startChild("postgres", os.Getenv(EnvPostgres)); err != nil {
			fmt.Println("FAIL on PostgreSQL:", err)
			return 1
		}
	}
	code := m.Run()
	if Postgres() {
		if err := spare.drain(os.Getenv(EnvPostgres)); err != nil {
			fmt.Println(err)
		}
		return code
	}
	if os.Getenv(EnvPostgres) == "" && os.Getenv(EnvCitus) == "" {
		if testing.Verbose() {
			fmt.Println(SkipMessage)
		}
		return code
	}
	if pg != nil {
		fmt.Println("=== RUN on PostgreSQL (" + EnvPostgres + " is set)")
		if err := pg.wait(); err != nil {
			fmt.Println("FAIL on PostgreSQL:", err)
			code = 1
		}
	}
	if os.Getenv(EnvCitus) != "" {
		fmt.Println("=== RUN on Citus (" + EnvCitus + " is set)")
		if err := rerun("citus", os.Getenv(EnvCitus)); err != nil {
			fmt.Println("FAIL on Citus:", err)
			code = 1
		}
	}
	return code
}

// child is a run of the tests in a child process whose output is kept in
// a file until it ends.
type child struct {
	cmd *exec.Cmd
	out *os.File
}

// startChild starts the tests again in a child process, as rerun does,
// with its output going to a temporary file.
func startChild(dialect, url string) (*child, error) {
	out, err := os.CreateTemp("", "okrgate-test-"+dialect+"-*.log")
	if err != nil {
		return nil, fmt.Errorf("a file for the %s run's output: %w", dialect, err)
	}
	cmd := childCommand(dialect, url)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		os.Remove(out.Name())
		return nil, fmt.Errorf("start the %s run: %w", dialect, err)
	}
	return &child{cmd: cmd, out: out}, nil
}

// wait waits for the child to end, copies its output to the standard
// output and removes the file.
func (c *child) wait() error {
	err := c.cmd.Wait()
	defer os.Remove(c.out.Name())
	defer c.out.Close()
	if _, serr := c.out.Seek(0, io.SeekStart); serr == nil {
		_, _ = io.Copy(os.Stdout, c.out)
	}
	return err
}

// rerun runs the tests again in a child process of the same test binary
// with the same flags, on the database of url in the dialect named.
func rerun(dialect, url string) error {
	cmd := childCommand(dialect, url)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// childCommand is the test binary with this process's flags, on the
// database of url in the dialect named.
func childCommand(dialect, url string) *exec.Cmd {
	var args []string
	for _, a := range os.Args[1:] {
		// The go command's test log and coverage profile belong to
		// this process.
		if strings.HasPrefix(a, "-test.testlogfile") || strings.HasPrefix(a, "-test.coverprofile") || strings.HasPrefix(a, "-test.gocoverdir") {
			continue
		}
		args = append(args, a)
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envDialect+"="+dialect, EnvPostgres+"="+url)
	return cmd
}
