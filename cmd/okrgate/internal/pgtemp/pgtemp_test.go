package pgtemp

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestCreateAndDrop: the database exists, is empty and reachable at the
// returned URL, and is gone after drop.
func TestCreateAndDrop(t *testing.T) {
	pgURL := os.Getenv("OKRGATE_TEST_POSTGRES")
	if pgURL == "" {
		t.Skip("OKRGATE_TEST_POSTGRES is not set")
	}
	ctx := context.Background()
	name := fmt.Sprintf("pgtemp_%d", time.Now().UnixNano())
	dbURL, drop, err := Create(ctx, pgURL, name)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	var current string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&current); err != nil {
		t.Fatal(err)
	}
	if current != name {
		t.Fatalf("connected to %q, want %q", current, name)
	}
	conn.Close(ctx) // drop forces out connections anyway; closing keeps the log quiet
	if err := drop(); err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var n int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("database %s still exists after drop", name)
	}
}
