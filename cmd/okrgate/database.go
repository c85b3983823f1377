package main

import (
	"errors"
	"net/url"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// The --db flag names either a SQLite file or a PostgreSQL database
// (postgres:// or postgresql:// URL); sqlstore.Open chooses the store from
// it. A PostgreSQL database is made by its server's administrator
// (createdb), so it always "exists" here, and okrgate migrates it on open.
// Several okrgate processes may serve one PostgreSQL database at once
// (docs/decisions/storage.md, "Running N okrgate replicas").

// isServerDB reports whether db names a database on a server rather than a
// file.
func isServerDB(db string) bool { return sqlstore.IsPostgres(db) }

// errBackupPostgres is okrgate backup's answer for a PostgreSQL database.
var errBackupPostgres = errors.New(`okrgate backup copies a SQLite file; a PostgreSQL database is backed up with its own tools, while okrgate keeps serving:
  pg_dump --format=custom --file=okrgate.dump 'postgres://USER@HOST/DB'
and restored into a new, empty database with:
  pg_restore --dbname='postgres://USER@HOST/NEWDB' okrgate.dump
(or continuous archiving / a managed service's snapshots for point-in-time recovery)`)

// displayDB is db as logs and messages show it: a URL's password masked.
func displayDB(db string) string {
	if !isServerDB(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "(a PostgreSQL URL)"
	}
	return u.Redacted()
}
