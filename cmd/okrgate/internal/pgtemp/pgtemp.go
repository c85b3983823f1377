// Package pgtemp creates throwaway PostgreSQL databases for the measurement
// programs under cmd/okrgate/internal (treebench, liveload, checkinbench):
// each run gets an empty database beside the one a URL names, dropped when
// the run ends, so runs never see each other's rows.
package pgtemp

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
)

// Create creates the empty database name on the server pgURL names and
// returns its URL and a function that drops it (with FORCE, so connections
// a killed server left open do not keep it). The drop has its own 30 s
// deadline: it runs when ctx may already be done.
func Create(ctx context.Context, pgURL, name string) (string, func() error, error) {
	u, err := url.Parse(pgURL)
	if err != nil {
		return "", nil, fmt.Errorf("pgtemp: parse URL: %w", err)
	}
	admin, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return "", nil, fmt.Errorf("pgtemp: connect: %w", err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		admin.Close(ctx)
		return "", nil, fmt.Errorf("pgtemp: create database %s: %w", name, err)
	}
	u.Path = "/" + name
	drop := func() error {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		defer admin.Close(dctx)
		if _, err := admin.Exec(dctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("pgtemp: drop database %s: %w", name, err)
		}
		return nil
	}
	return u.String(), drop, nil
}
