package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Citus: a database whose citus extension is installed (a Citus
// coordinator, or Azure's managed Citus) gets every table distributed by
// account after the migrations, so that each account's rows live together
// on one worker and a statement that names its account runs on that worker
// alone. docs/decisions/citus.md ("Sharding by account on Citus") has the design;
// docs/operations.md how to run it.
//
// accounts is distributed by its id and every table with an account_id
// column by that column, all in accounts' co-location group, so joins on
// account_id and the foreign keys to accounts stay within one shard, and
// a write's lock of its account's row (lockAccount) is taken on the shard
// of its account. The tables shared by every account (referenceTables)
// are reference tables: a copy on every node, which a statement joins or
// reads on whichever node it runs. The migration tool's goose_db_version
// stays a local table of the coordinator, which only migrations read.

// referenceTables are the tables shared by every account: token_accounts,
// the account of each token by its hash, which authentication reads
// before it knows the account (auth.go).
var referenceTables = []string{"token_accounts"}

// citusTablesSQL lists the tables of the current schema that Citus does not
// distribute yet, with their distribution column: none (the empty
// string) for a reference table ($1 lists them), id for accounts,
// account_id for the tables that have one. The reference tables come
// first, then accounts: the others are co-located with it.
const citusTablesSQL = `SELECT c.relname, CASE WHEN c.relname = ANY ($1) THEN ''
		WHEN c.relname = 'accounts' THEN 'id' ELSE 'account_id' END
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
		AND (c.relname = ANY ($1) OR c.relname = 'accounts' OR EXISTS (SELECT 1 FROM pg_attribute a
			WHERE a.attrelid = c.oid AND a.attname = 'account_id' AND NOT a.attisdropped))
		AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid)
	ORDER BY c.relname <> ALL ($1), c.relname <> 'accounts', c.relname`

// citusForeignKeysSQL lists the foreign keys of the current schema's
// tables, each with its table and definition, to drop before distributing
// and to create again after: Citus distributes a table only when the
// tables it references and that reference it are distributed alike.
const citusForeignKeysSQL = `SELECT k.conname, c.relname, pg_get_constraintdef(k.oid)
	FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname = current_schema() AND k.contype = 'f'
	ORDER BY c.relname, k.conname`

// Citus reports whether the database of a PostgreSQL store has the citus
// extension, that is, whether its tables are distributed by account.
func (s *Store) Citus(ctx context.Context) (bool, error) {
	if s.pg == nil {
		return false, nil
	}
	return hasCitus(ctx, s.w)
}

func hasCitus(ctx context.Context, q querier) (bool, error) {
	var ok bool
	if err := q.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')").Scan(&ok); err != nil {
		return false, fmt.Errorf("sqlstore: citus: %w", err)
	}
	return ok, nil
}

// distribute distributes the tables of the current schema that are not
// yet distributed on a database with the citus extension, and does nothing
// on one without it. It runs after the migrations at every start, so a
// database migrated before citus was installed is distributed on the next
// start, and so is a table a later migration adds. One transaction under
// the migrations' advisory lock: replicas starting together distribute
// once.
func (p *pgStore) distribute(ctx context.Context, db *sql.DB, lockID int64) (err error) {
	ok, err := hasCitus(ctx, db)
	if err != nil || !ok {
		return err
	}
	p.citus = true
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: citus: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("sqlstore: citus: %w", err), tx.Rollback())
		}
	}()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", lockID); err != nil {
		return err
	}
	tables, err := citusTables(ctx, tx)
	if err != nil || len(tables) == 0 {
		if err == nil {
			err = tx.Commit()
		}
		return err
	}
	// Citus creates the shards of a table over one connection per worker
	// when the transaction has already changed distributed tables.
	if _, err := tx.ExecContext(ctx, "SET LOCAL citus.multi_shard_modify_mode TO 'sequential'"); err != nil {
		return err
	}
	fks, err := citusForeignKeys(ctx, tx)
	if err != nil {
		return err
	}
	for _, fk := range fks {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+pgx.Identifier{fk.table}.Sanitize()+" DROP CONSTRAINT "+pgx.Identifier{fk.name}.Sanitize()); err != nil {
			return fmt.Errorf("drop %s: %w", fk.name, err)
		}
	}
	for _, t := range tables {
		var err error
		switch {
		case t.column == "":
			_, err = tx.ExecContext(ctx, "SELECT create_reference_table($1)", t.name)
		case t.name == "accounts":
			_, err = tx.ExecContext(ctx, "SELECT create_distributed_table($1, $2)", t.name, t.column)
		default:
			_, err = tx.ExecContext(ctx, "SELECT create_distributed_table($1, $2, colocate_with => 'accounts')", t.name, t.column)
		}
		if err != nil {
			return fmt.Errorf("distribute %s: %w", t.name, err)
		}
		// Citus copies a table's rows into its shards and hides the
		// coordinator's own copy; this frees it.
		if _, err := tx.ExecContext(ctx, "SELECT truncate_local_data_after_distributing_table($1)", t.name); err != nil {
			return fmt.Errorf("distribute %s: %w", t.name, err)
		}
	}
	for _, fk := range fks {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+pgx.Identifier{fk.table}.Sanitize()+" ADD CONSTRAINT "+pgx.Identifier{fk.name}.Sanitize()+" "+fk.def); err != nil {
			return fmt.Errorf("add %s: %w", fk.name, err)
		}
	}
	return tx.Commit()
}

// citusTable is a table to distribute and its distribution column, or
// none for a reference table.
type citusTable struct{ name, column string }

func citusTables(ctx context.Context, q querier) ([]citusTable, error) {
	rows, err := q.QueryContext(ctx, citusTablesSQL, referenceTables)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []citusTable
	for rows.Next() {
		var t citusTable
		if err := rows.Scan(&t.name, &t.column); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// foreignKey is a foreign key constraint: its name, table and definition.
type foreignKey struct{ name, table, def string }

func citusForeignKeys(ctx context.Context, q querier) ([]foreignKey, error) {
	rows, err := q.QueryContext(ctx, citusForeignKeysSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []foreignKey
	for rows.Next() {
		var k foreignKey
		if err := rows.Scan(&k.name, &k.table, &k.def); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
