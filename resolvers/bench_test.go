package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/seed"
)

// Benchmark datasets. Seeding through the store costs about 50 ms per
// objective, so the benchmark seeds 100 objectives once through the store
// (seed.Synthetic) and builds the larger datasets by replicating those rows
// with fresh ids (sqlstoretest.Replicate): every copy is a real store-written tree,
// so derived figures (attainment, counts) stay consistent.

var (
	benchBaseOnce sync.Once
	benchBase     string // database file with 100 seeded objectives
	benchToken    string
	benchBaseErr  error
)

const benchBaseGoals = 100

func benchBaseDB() (string, string, error) {
	benchBaseOnce.Do(func() {
		ctx := context.Background()
		benchBase = filepath.Join(tmpRoot, "bench-base.db")
		st, err := sqlstore.Open(ctx, benchBase)
		if err != nil {
			benchBaseErr = err
			return
		}
		defer st.Close()
		boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Bench", Email: "bench@bench.test"})
		if err != nil {
			benchBaseErr = err
			return
		}
		c, err := st.Authenticate(ctx, boot.Token)
		if err != nil {
			benchBaseErr = err
			return
		}
		benchToken = boot.Token
		_, benchBaseErr = seed.Synthetic(upstream.NewContext(ctx, c), st, seed.Options{Goals: benchBaseGoals, Seed: 11, Sessions: 2})
	})
	return benchBase, benchToken, benchBaseErr
}

// benchStore opens a copy of the base database holding n objectives.
func benchStore(b testing.TB, n int) (*sqlstore.Store, string) {
	b.Helper()
	base, token, err := benchBaseDB()
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(tmpRoot, fmt.Sprintf("bench-%d.db", n))
	if _, err := os.Stat(path); err != nil {
		raw, err := os.ReadFile(base)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			b.Fatal(err)
		}
		if err := sqlstoretest.Replicate(path, n/benchBaseGoals); err != nil {
			b.Fatal(err)
		}
	}
	dsn := path
	if sqlstoretest.Postgres() {
		dsn = benchPostgres(b, n, path)
	}
	st, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		b.Fatal(err)
	}
	return st, token
}

// benchPG holds, in the PostgreSQL run, the schema holding a copy of each
// benchmark database, made once per process and dropped by TestMain.
var benchPG struct {
	sync.Mutex
	dsn   map[int]string
	drops []func() error
}

// benchPostgres returns a PostgreSQL schema holding the rows of the SQLite
// benchmark database path (n objectives): the same data on both stores.
func benchPostgres(b testing.TB, n int, path string) string {
	b.Helper()
	benchPG.Lock()
	defer benchPG.Unlock()
	if dsn, ok := benchPG.dsn[n]; ok {
		return dsn
	}
	dsn, drop, err := sqlstoretest.SharedDSN(tmpRoot, "")
	if err != nil {
		b.Fatal(err)
	}
	benchPG.drops = append(benchPG.drops, drop)
	st, err := sqlstore.Open(context.Background(), dsn) // migrates
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	if err := sqlstoretest.CopyToPostgres(context.Background(), path, dsn); err != nil {
		b.Fatal(err)
	}
	if benchPG.dsn == nil {
		benchPG.dsn = map[int]string{}
	}
	benchPG.dsn[n] = dsn
	return dsn
}

// BenchmarkNestedTree runs the nested tree query (treeQuery, every session
// of the account) over GraphQL, against the baseline of reading the same
// data with direct store calls and encoding it with encoding/json.
//
//	go test ./resolvers -run '^$' -bench BenchmarkNestedTree -benchtime 5x
func BenchmarkNestedTree(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		st, token := benchStore(b, n)
		ctx := context.Background()
		caller, err := st.Authenticate(ctx, token)
		if err != nil {
			b.Fatal(err)
		}
		cctx := upstream.NewContext(ctx, caller)
		sp, err := st.ListSessions(cctx, upstream.ListQuery{}, false)
		if err != nil {
			b.Fatal(err)
		}
		var sessions []string
		for _, s := range sp.Items {
			sessions = append(sessions, s.ID)
		}
		calls := instrument.NewCounter()
		api := instrument.New(st, calls)
		bodies := make([][]byte, len(sessions))
		for i, sid := range sessions {
			bodies[i], _ = json.Marshal(map[string]any{"query": treeQuery, "variables": map[string]any{"id": sid}})
		}
		// graphql: the server as it runs; gqlgen: every field through
		// gqlgen's executor (no fast path), for comparison.
		for _, side := range []struct {
			name string
			cfg  graphqlhttp.Config
		}{
			{"graphql", graphqlhttp.Config{API: api, Auth: st}},
			{"gqlgen", graphqlhttp.Config{API: api, Auth: st, NoFastPath: true}},
		} {
			h := graphqlhttp.NewHandler(side.cfg)
			b.Run(fmt.Sprintf("%s/%d", side.name, n), func(b *testing.B) {
				b.ReportAllocs()
				before, sqlBefore := calls.Total(), st.QueryCount()
				for b.Loop() {
					for _, body := range bodies {
						req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Authorization", "Bearer "+token)
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, req)
						if rec.Code != 200 || bytes.Contains(rec.Body.Bytes(), []byte(`"errors"`)) {
							b.Fatalf("HTTP %d: %.500s", rec.Code, rec.Body.String())
						}
					}
				}
				b.ReportMetric(float64(calls.Total()-before)/float64(b.N), "upstream-calls/op")
				b.ReportMetric(float64(st.QueryCount()-sqlBefore)/float64(b.N), "sql-statements/op")
			})
		}
		b.Run(fmt.Sprintf("baseline/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			before, sqlBefore := calls.Total(), st.QueryCount()
			for b.Loop() {
				for _, sid := range sessions {
					// One request per session, like the GraphQL side.
					tree, err := directTree(upstream.WithMemo(cctx), api, sid)
					if err != nil {
						b.Fatal(err)
					}
					if err := json.NewEncoder(io.Discard).Encode(map[string]any{"data": tree}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(calls.Total()-before)/float64(b.N), "upstream-calls/op")
			b.ReportMetric(float64(st.QueryCount()-sqlBefore)/float64(b.N), "sql-statements/op")
		})
		st.Close()
	}
}
