package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/query"
)

// BenchmarkLevelRead reads a level of the tree as the GraphQL loaders do:
// the key results of 1,000 goals (~3,000), every match in one statement,
// three fields decoded (narrowed), and beside it the same level as whole
// documents, at 10,000 objectives, on SQLite and, with
// OKRGATE_TEST_POSTGRES set, on a PostgreSQL copy of the same rows
// (docs/decisions/tree-read-path.md, "Where a level's members are picked").
//
//	go test ./upstream/backend/sqlstore -run '^$' -bench BenchmarkLevelRead -benchtime 20x -count 3 -benchmem
func BenchmarkLevelRead(b *testing.B) {
	d := &readDatasets{dir: b.TempDir(), sets: map[int]*readData{}}
	defer func() {
		for _, r := range d.sets {
			r.store.Close()
		}
	}()
	r := d.get(b, 10000)
	type side struct {
		name  string
		store *sqlstore.Store
		admin context.Context
	}
	sides := []side{{"sqlite", r.store, r.admin}}
	if pg := os.Getenv("OKRGATE_TEST_POSTGRES"); pg != "" {
		dsn, drop, err := sqlstoretest.SharedDSN(b.TempDir(), "")
		if err != nil {
			b.Fatal(err)
		}
		defer drop()
		st, err := sqlstore.Open(context.Background(), dsn) // migrates
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
		if err := sqlstoretest.CopyToPostgres(context.Background(), d.path(10000), dsn); err != nil {
			b.Fatal(err)
		}
		if st, err = sqlstore.Open(context.Background(), dsn); err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		c, err := st.Authenticate(context.Background(), d.token)
		if err != nil {
			b.Fatal(err)
		}
		sides = append(sides, side{"postgres", st, upstream.NewContext(context.Background(), c)})
	}
	in := query.In("goalId", anyOf(r.goalIDs)...)
	byID := []query.SortKey{{Field: "id"}}
	for _, s := range sides {
		for _, way := range []struct {
			name string
			lq   upstream.ListQuery
		}{
			{"narrowed", upstream.ListQuery{Filter: in, Sort: byID, All: true,
				Fields: query.Projection{"id": nil, "name": nil, "attainment": nil}, Decode: []string{"id", "name", "attainment"}}},
			{"whole", upstream.ListQuery{Filter: in, Sort: byID, All: true}},
		} {
			b.Run(fmt.Sprintf("%s/%s", s.name, way.name), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					p, err := s.store.ListMetrics(upstream.WithMemo(s.admin), way.lq)
					if err != nil || len(p.Items) < 1500 {
						b.Fatalf("%d key results, %v; want ~3,000", len(p.Items), err)
					}
				}
			})
		}
	}
}
