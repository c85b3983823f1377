package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/query"
	"github.com/okrgate/okrgate/upstream/seed"
)

// readBase is the dataset the read-path benchmarks grow: 100 objectives
// seeded through the store (seed.Synthetic: 2 sessions, ~3 key results and
// ~2 tasks each), copied into bigger files by copyRows.
const readBase = 100

// readData is one benchmark dataset: a store holding n objectives and the
// ids the benchmarks look up, the same in every size (the seeded rows are
// kept; the copies get fresh ids).
type readData struct {
	store   *sqlstore.Store
	admin   context.Context
	member  context.Context // a member: its reads go through the visibility conditions
	goal    string          // a root goal of the seeded rows, with key results
	goalIDs []string        // 1,000 goal ids
	keyIDs  []string        // goal ids holding ~1,000 key results
}

// readDatasets builds the datasets lazily, each once per benchmark run; the
// benchmark closes their stores.
type readDatasets struct {
	dir   string
	base  string
	token string
	sets  map[int]*readData
}

func (d *readDatasets) get(b *testing.B, n int) *readData {
	b.Helper()
	if r := d.sets[n]; r != nil {
		return r
	}
	ctx := context.Background()
	if d.base == "" {
		d.base = filepath.Join(d.dir, "base.db")
		st, err := sqlstore.Open(ctx, d.base)
		if err != nil {
			b.Fatal(err)
		}
		boot, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Bench", Email: "bench@bench.test"})
		if err != nil {
			b.Fatal(err)
		}
		c, err := st.Authenticate(ctx, boot.Token)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := seed.Synthetic(upstream.NewContext(ctx, c), st, seed.Options{Goals: readBase, Seed: 11, Sessions: 2}); err != nil {
			b.Fatal(err)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		d.token = boot.Token
	}
	path := d.path(n)
	raw, err := os.ReadFile(d.base)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	if err := sqlstoretest.Replicate(path, n/readBase); err != nil {
		b.Fatal(err)
	}
	st, err := sqlstore.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	c, err := st.Authenticate(ctx, d.token)
	if err != nil {
		b.Fatal(err)
	}
	r := &readData{store: st, admin: upstream.NewContext(ctx, c)}
	var ids []string
	rows, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	// A member of the seeded users (seed.Synthetic gives them the member
	// role), to read through the visibility conditions.
	var memberID string
	if err := rows.QueryRow(`SELECT id FROM users WHERE email = 'user1.s11@example.test'`).Scan(&memberID); err != nil {
		b.Fatal(err)
	}
	tok, err := st.CreateUserToken(r.admin, memberID)
	if err != nil {
		b.Fatal(err)
	}
	mc, err := st.Authenticate(ctx, tok.Token)
	if err != nil {
		b.Fatal(err)
	}
	r.member = upstream.NewContext(ctx, mc)
	// The seeded rows come first in rowid order: the same goals at every size.
	if err := rows.QueryRow(`SELECT g.id FROM goals g WHERE g.parent_id = '' AND EXISTS (SELECT 1 FROM metrics m WHERE m.goal_id = g.id)
		ORDER BY g.rowid LIMIT 1`).Scan(&r.goal); err != nil {
		b.Fatal(err)
	}
	q, err := rows.Query(`SELECT id FROM goals ORDER BY rowid LIMIT 1000`)
	if err != nil {
		b.Fatal(err)
	}
	for q.Next() {
		var id string
		if err := q.Scan(&id); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	q.Close()
	r.goalIDs = ids
	q, err = rows.Query(`SELECT goal_id FROM metrics GROUP BY goal_id ORDER BY min(rowid) LIMIT 333`)
	if err != nil {
		b.Fatal(err)
	}
	for q.Next() {
		var id string
		if err := q.Scan(&id); err != nil {
			b.Fatal(err)
		}
		r.keyIDs = append(r.keyIDs, id)
	}
	q.Close()
	d.sets[n] = r
	return r
}

// path is the SQLite file of the dataset of n objectives.
func (d *readDatasets) path(n int) string {
	return filepath.Join(d.dir, fmt.Sprintf("goals-%d.db", n))
}

func anyOf(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// BenchmarkReadPath measures the store's reads at 1,000 and 10,000
// objectives: a goal by id (what GET /api/v1/goals/{id} runs), and pages of
// 1,000 as the GraphQL edges ask for them ($in on a key, id order). Each op
// is a request of its own (a fresh memo), as an account admin, or as a
// member (…Member: through the visibility conditions). It reports
// the store's SQL statements per op.
func BenchmarkReadPath(b *testing.B) {
	d := &readDatasets{dir: b.TempDir(), sets: map[int]*readData{}}
	defer func() {
		for _, r := range d.sets {
			r.store.Close()
		}
	}()
	byID := []query.SortKey{{Field: "id"}}
	ops := []struct {
		name string
		op   func(r *readData) error
	}{
		{"GetGoal", func(r *readData) error {
			_, err := r.store.GetGoal(upstream.WithMemo(r.admin), r.goal)
			return err
		}},
		{"GetGoalMember", func(r *readData) error {
			_, err := r.store.GetGoal(upstream.WithMemo(r.member), r.goal)
			return err
		}},
		{"ListGoalsByID", func(r *readData) error {
			p, err := r.store.ListGoals(upstream.WithMemo(r.admin), upstream.ListQuery{Filter: query.In("id", anyOf(r.goalIDs)...), Sort: byID, Limit: upstream.MaxLimit})
			if err == nil && len(p.Items) != len(r.goalIDs) {
				err = fmt.Errorf("%d goals, want %d", len(p.Items), len(r.goalIDs))
			}
			return err
		}},
		{"ListMetricsByGoal", func(r *readData) error {
			p, err := r.store.ListMetrics(upstream.WithMemo(r.admin), upstream.ListQuery{Filter: query.In("goalId", anyOf(r.keyIDs)...), Sort: byID, Limit: upstream.MaxLimit})
			if err == nil && len(p.Items) < 500 {
				err = fmt.Errorf("%d key results, want ~1,000", len(p.Items))
			}
			return err
		}},
		{"ListMetricsPaged", func(r *readData) error {
			// The key results of 1,000 goals (~3,000), page after page of
			// 1,000, as an edge loads a level.
			n := 0
			for skip := 0; ; skip += upstream.MaxLimit {
				p, err := r.store.ListMetrics(upstream.WithMemo(r.admin), upstream.ListQuery{Filter: query.In("goalId", anyOf(r.goalIDs)...), Sort: byID, Limit: upstream.MaxLimit, Skip: skip})
				if err != nil {
					return err
				}
				n += len(p.Items)
				if skip+upstream.MaxLimit >= p.TotalCount {
					break
				}
			}
			if n < 1500 {
				return fmt.Errorf("%d key results, want ~3,000", n)
			}
			return nil
		}},
		{"ListMetricsByGoalMember", func(r *readData) error {
			p, err := r.store.ListMetrics(upstream.WithMemo(r.member), upstream.ListQuery{Filter: query.In("goalId", anyOf(r.keyIDs)...), Sort: byID, Limit: upstream.MaxLimit})
			if err == nil && len(p.Items) < 500 {
				err = fmt.Errorf("%d key results, want ~1,000", len(p.Items))
			}
			return err
		}},
	}
	for _, o := range ops {
		for _, n := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("%s/%d", o.name, n), func(b *testing.B) {
				r := d.get(b, n)
				if err := o.op(r); err != nil {
					b.Fatal(err)
				}
				before := r.store.QueryCount()
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := o.op(r); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(r.store.QueryCount()-before)/float64(b.N), "sql-statements/op")
			})
		}
	}
}
