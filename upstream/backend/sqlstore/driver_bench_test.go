//go:build driverbench

// Driver choice benchmark: the store's hot paths on modernc.org/sqlite (pure
// Go, what the store uses) against github.com/mattn/go-sqlite3 (cgo). It is
// behind the driverbench build tag so that an ordinary go test ./... never
// needs cgo or a C compiler. Run it with
//
//	go test -tags driverbench -run '^$' -bench BenchmarkDriver -benchmem -count 5 ./upstream/backend/sqlstore/
//
// Each operation goes through the store's own code (goals.get, goals.list,
// metrics.in, subtree, goals.update and the check-in INSERT of CheckIn), so
// the SQL is exactly what the store sends; only the *sql.DB underneath
// changes.
package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// The mattn driver registered with regexp(pattern, value), as the store
// would have to: mattn has no process-wide function registry, so functions
// are added to each new connection by a ConnectHook.
const mattnDriver = "sqlite3_okrgate_bench"

var registerMattn sync.Once

func mattnRegister() {
	registerMattn.Do(func() {
		var re query.RegexpFunc
		sql.Register(mattnDriver, &sqlite3.SQLiteDriver{
			ConnectHook: func(c *sqlite3.SQLiteConn) error {
				return c.RegisterFunc("regexp", func(p, v any) (any, error) {
					return re.Call([]driver.Value{p, v})
				}, true)
			},
		})
	})
}

// benchDriver opens the writer and the read pool the way Open does.
type benchDriver struct {
	name string
	open func(path string) (w, r *sql.DB, err error)
}

var benchDrivers = []benchDriver{
	{"modernc", func(path string) (*sql.DB, *sql.DB, error) {
		registerFunctions()
		// The DSNs of store.go.
		common := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
		w, err := sql.Open("sqlite", path+"?"+common+"&_pragma=journal_mode(WAL)&_txlock=immediate")
		if err != nil {
			return nil, nil, err
		}
		r, err := sql.Open("sqlite", path+"?"+common+"&_pragma=query_only(1)")
		return w, r, err
	}},
	{"mattn", func(path string) (*sql.DB, *sql.DB, error) {
		mattnRegister()
		common := "_busy_timeout=10000&_foreign_keys=1&_synchronous=NORMAL"
		w, err := sql.Open(mattnDriver, "file:"+path+"?_journal_mode=WAL&"+common+"&_txlock=immediate")
		if err != nil {
			return nil, nil, err
		}
		r, err := sql.Open(mattnDriver, "file:"+path+"?"+common+"&_query_only=1")
		return w, r, err
	}},
}

// benchData is what the benchmarks address: the ids of the synthetic data.
type benchData struct {
	account string
	goals   []string // all goal ids, in insertion order
	roots   []string // tree roots
	metric  []string // metric ids, parallel to metricGoal
	mGoal   []string
	session string
}

const (
	benchTrees = 38 // × 52 goals per tree (1 + 3 + 12 + 36, depth ≤ 4) = 1976 goals
	benchBatch = 100
)

// initSQL returns the Up part of the migration, without goose annotations.
func initSQL(b *testing.B) string {
	raw, err := os.ReadFile("../sqlstore/migrations/sqlite/00001_init.sql")
	if err != nil {
		b.Fatal(err)
	}
	src := string(raw)
	if i := strings.Index(src, "-- +goose Down"); i >= 0 {
		src = src[:i]
	}
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "-- +goose") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func ptr[T any](v T) *T { return &v }

// fill writes one account with benchTrees goal trees, 3 key results and 2
// tasks per goal, all through the store's insert statements, in one
// transaction.
func fill(b *testing.B, w *sql.DB) benchData {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	ids := upstream.NewIDSource()
	d := benchData{account: ids.New(), session: ids.New()}
	owners := []string{ids.New(), ids.New(), ids.New(), ids.New(), ids.New()}
	const now = "2026-01-15T10:00:00.000Z"
	words := strings.Fields("increase reduce launch grow improve ship retain revenue churn latency adoption NPS pipeline quality hiring onboarding")
	phrase := func(n int) string {
		p := make([]string, n)
		for i := range p {
			p[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(p, " ")
	}

	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	q := querier(tx)
	if _, err := q.ExecContext(ctx, "INSERT INTO accounts (id, doc) VALUES (?, ?)", d.account, `{"name":"Bench"}`); err != nil {
		b.Fatal(err)
	}
	ss := upstream.Session{ID: d.session, AccountID: d.account, Title: "Q1", Status: upstream.SessionOpen,
		Start: "2026-01-01", End: "2026-03-31", Permissions: []upstream.PermissionEntry{}, Tags: []upstream.Tag{}}
	if err := sessions.insert(ctx, q, d.account, &ss); err != nil {
		b.Fatal(err)
	}
	newGoal := func(parent string, depth int) string {
		owner := owners[rng.IntN(len(owners))]
		g := upstream.Goal{
			ID: ids.New(), AccountID: d.account,
			Name:                 strings.ToUpper(phrase(1)[:1]) + phrase(4),
			Description:          phrase(20),
			RichTextDescription:  "<p>" + phrase(20) + "</p>",
			Attainment:           rng.Float64(),
			AggregatedAttainment: rng.Float64(), ChildrenAggregatedAttainment: rng.Float64(), FullAggregatedAttainment: rng.Float64(),
			AttainmentTypeString: upstream.AverageKRAndChildren,
			ChildrenCount:        3, SubTreeCount: 3 * depth, FullSubTreeCount: 4 * depth,
			ClosedStatus: upstream.ClosedStatus{Status: upstream.GoalActive},
			CreatedByID:  owners[0], ModifiedByID: owners[0], DateCreated: now,
			DateFrom: "2026-01-01", DateTo: "2026-03-31", Duration: 90,
			DesignScore: &upstream.DesignScore{TotalPoints: 7, Policies: []upstream.DesignPolicy{
				{IsPassed: true, Policy: "has_owner", Score: 3}, {IsPassed: false, Policy: "measurable", Score: 4}}},
			Assignees: []upstream.Assignee{},
			OwnerID:   owner, OwnerIDs: []string{owner}, NumberOfOwners: 1,
			OrderID: rng.IntN(1000), ParentID: parent, SessionID: d.session,
			MetricsCount: 3, TasksCount: 2, NonArchivedTasksCount: 2,
			Tags: []upstream.Tag{}, Watchers: []string{owners[1]},
			URL: "https://okr.example/goals/x",
		}
		if parent != "" {
			g.ParentType = "goal"
			g.ParentGoalSessionID = d.session
		}
		if err := goals.insert(ctx, q, d.account, &g); err != nil {
			b.Fatal(err)
		}
		d.goals = append(d.goals, g.ID)
		for range 3 {
			m := upstream.Metric{
				ID: ids.New(), AccountID: d.account, Name: phrase(5), Description: phrase(12),
				Actual: float64(rng.IntN(100)), InitialValue: 0, Target: 100, Critical: ptr(20.0),
				TargetOperator: upstream.AtLeast, CascadeType: "none", ManualType: upstream.TypeDouble,
				DueDate: "2026-03-31", Format: upstream.MetricFormat{ID: "number", FractionSize: 0},
				GoalID: g.ID, GoalName: g.Name, GoalOwnerID: owner, GoalOwnerIDs: []string{owner},
				GoalClosedStatus: g.ClosedStatus, OwnerID: owner, OwnerIDs: []string{owner}, NumberOfOwners: 1,
				Assignees: []upstream.Assignee{}, SessionID: d.session,
				CurrentUserAllowedActions: []string{"edit", "checkin"}, Settings: []upstream.Setting{},
				URL: "https://okr.example/metrics/x", Attainment: rng.Float64(), Confidence: ptr(7.0),
				LastCheckInDate: now,
			}
			if err := metrics.insert(ctx, q, d.account, &m); err != nil {
				b.Fatal(err)
			}
			d.metric = append(d.metric, m.ID)
			d.mGoal = append(d.mGoal, g.ID)
		}
		for range 2 {
			t := upstream.Task{
				ID: ids.New(), AccountID: d.account, Name: phrase(4), Description: phrase(10),
				Status: upstream.TaskTodo, TaskType: "task", Priority: rng.IntN(4), DueDate: "2026-02-28",
				OwnerID: owner, ParentID: g.ID, ParentName: g.Name, ParentType: upstream.ParentGoal,
				SessionID: d.session, CreatedByID: owner, ModifiedByID: owner, DateCreated: now, DateModified: now,
				Snapshots: []upstream.TaskSnapshot{},
			}
			if err := tasks.insert(ctx, q, d.account, &t); err != nil {
				b.Fatal(err)
			}
		}
		return g.ID
	}
	for range benchTrees {
		root := newGoal("", 0)
		d.roots = append(d.roots, root)
		for range 3 {
			c := newGoal(root, 1)
			for range 4 {
				gc := newGoal(c, 2)
				for range 3 {
					newGoal(gc, 3)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return d
}

// setup creates, migrates and fills a database for one driver.
func setup(b *testing.B, drv benchDriver) (w, r *sql.DB, d benchData) {
	path := filepath.Join(b.TempDir(), "bench.db")
	w, r, err := drv.open(path)
	if err != nil {
		b.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	b.Cleanup(func() { r.Close(); w.Close() })
	if _, err := w.Exec(initSQL(b)); err != nil {
		b.Fatal(err)
	}
	var mode string
	if err := w.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		b.Fatalf("%s: journal_mode %q, %v", drv.name, mode, err)
	}
	d = fill(b, w)
	// The read pool must really be read-only, and regexp must work on it.
	if _, err := r.Exec("DELETE FROM tasks"); err == nil {
		b.Fatalf("%s: read pool accepted a write", drv.name)
	}
	var n int
	if err := r.QueryRow(`SELECT count(*) FROM goals WHERE regexp('^I', json_extract(doc, '$.name'))`).Scan(&n); err != nil || n == 0 {
		b.Fatalf("%s: regexp: %d, %v", drv.name, n, err)
	}
	explain(b, drv.name, r, `SELECT doc FROM goals WHERE account_id = ? AND (id IN (WITH RECURSIVE down(id) AS (
			SELECT ? UNION SELECT g.id FROM goals g JOIN down ON g.parent_id = down.id WHERE g.account_id = ?)
		SELECT id FROM down)) ORDER BY id`, d.account, d.roots[0], d.account)
	return w, r, d
}

// explain logs the query plan of a statement.
func explain(b *testing.B, name string, db *sql.DB, stmt string, args ...any) {
	rows, err := db.Query("EXPLAIN QUERY PLAN "+stmt, args...)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			b.Fatal(err)
		}
		plan = append(plan, fmt.Sprintf("%d<-%d %s", id, parent, detail))
	}
	var v string
	_ = db.QueryRow("SELECT sqlite_version()").Scan(&v)
	b.Logf("%s (SQLite %s) plan:\n\t%s", name, v, strings.Join(plan, "\n\t"))
}

func BenchmarkDriver(b *testing.B) {
	ctx := context.Background()
	filter, err := query.ParseFilter(upstream.GoalFields, `{attainment:{$gt:0.5}}`)
	if err != nil {
		b.Fatal(err)
	}
	lq := upstream.ListQuery{Filter: filter, Sort: []query.SortKey{{Field: "name"}}, Limit: 100}
	where, _ := filter.SQL(query.SQLite, upstream.GoalFields, "doc", 1)
	b.Logf("list SQL: SELECT doc FROM goals WHERE account_id = ? AND (%s) ORDER BY %s LIMIT ? OFFSET ?",
		where, query.OrderBy(query.SQLite, upstream.GoalFields, "doc", lq.Sort))

	for _, drv := range benchDrivers {
		b.Run(drv.name, func(b *testing.B) {
			w, r, d := setup(b, drv)
			var checkTotal int

			b.Run("get", func(b *testing.B) {
				i := 0
				for b.Loop() {
					g, err := goals.get(ctx, r, d.account, d.goals[i%len(d.goals)])
					if err != nil || g.ID == "" {
						b.Fatal(g.ID, err)
					}
					i++
				}
			})

			b.Run("list", func(b *testing.B) {
				for b.Loop() {
					items, total, err := goals.list(ctx, r, d.account, lq)
					if err != nil || len(items) != 100 {
						b.Fatal(len(items), err)
					}
					checkTotal = total
				}
			})
			b.Logf("%s: list total %d of %d goals", drv.name, checkTotal, len(d.goals))

			b.Run("batch", func(b *testing.B) {
				i := 0
				n := len(d.goals) / benchBatch
				for b.Loop() {
					off := (i % n) * benchBatch
					ms, err := metrics.in(ctx, r, d.account, "goal_id", d.goals[off:off+benchBatch])
					if err != nil || len(ms) != 3*benchBatch {
						b.Fatal(len(ms), err)
					}
					i++
				}
			})

			b.Run("subtree", func(b *testing.B) {
				i := 0
				for b.Loop() {
					gs, err := subtree(ctx, r, d.account, d.roots[i%len(d.roots)])
					if err != nil || len(gs) != 52 {
						b.Fatal(len(gs), err)
					}
					i++
				}
			})

			b.Run("write", func(b *testing.B) {
				ids := upstream.NewIDSource()
				snap := fmt.Sprintf(`{"id":%q,"name":"snapshot","actual":42,"target":100,"attainment":0.42}`, d.metric[0])
				// The goal documents are loaded up front: the transaction
				// is what is measured.
				all, err := goals.where(ctx, r, d.account, "1 = 1")
				if err != nil {
					b.Fatal(err)
				}
				byID := make(map[string]upstream.Goal, len(all))
				for _, g := range all {
					byID[g.ID] = g
				}
				i := 0
				for b.Loop() {
					k := i % len(d.metric)
					g := byID[d.mGoal[k]]
					tx, err := w.BeginTx(ctx, nil)
					if err != nil {
						b.Fatal(err)
					}
					g.Attainment = float64(i%100) / 100
					if err := goals.update(ctx, tx, d.account, &g); err != nil {
						b.Fatal(err)
					}
					ci := upstream.CheckIn{ID: ids.New(), AccountID: d.account, MetricID: d.metric[k], GoalID: g.ID,
						Actual: float64(i % 100), Attainment: g.Attainment, CheckInDate: "2026-01-20T10:00:00.000Z",
						Comment: "bench", CreatedByID: g.OwnerID, DateCreated: "2026-01-20T10:00:00.000Z"}
					doc, _ := json.Marshal(ci)
					if _, err := tx.ExecContext(ctx, "INSERT INTO checkins (id, account_id, metric_id, goal_id, doc, snapshot) VALUES (?, ?, ?, ?, ?, ?)",
						ci.ID, d.account, ci.MetricID, ci.GoalID, string(doc), snap); err != nil {
						b.Fatal(err)
					}
					if err := tx.Commit(); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		})
	}
}
