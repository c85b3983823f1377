// Package seed fills a store with data: a small hand-written demo account
// for people trying okrgate, and deterministic synthetic datasets of any size
// for tests and benchmarks. Everything goes through the store's public
// operations (the Writer interface), so seeded data obeys the same rules as
// data written over HTTP.
package seed

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// Writer is what seeding writes through: a subset of upstream.API, so the
// local store and a client of a remote server can both be filled.
type Writer interface {
	CreateUser(ctx context.Context, in upstream.UserInput) (upstream.User, error)
	CreateSession(ctx context.Context, in upstream.SessionInput) (upstream.Session, error)
	CreateGoal(ctx context.Context, in upstream.GoalInput) (upstream.Goal, error)
	CreateMetric(ctx context.Context, in upstream.MetricInput) (upstream.Metric, error)
	CheckIn(ctx context.Context, metricID string, in upstream.CheckInInput) (upstream.CheckIn, error)
	CreateTask(ctx context.Context, in upstream.TaskInput) (upstream.Task, error)
}

// Batcher is a Writer that can group many writes into one commit
// (*sqlstore.Store: Bulk). Seeding uses it when the Writer offers it.
type Batcher interface {
	// Bulk runs fn with a view of the store whose writes join one
	// transaction.
	Bulk(ctx context.Context, fn func(batch *sqlstore.Store) error) error
}

var _ interface {
	Writer
	Batcher
} = (*sqlstore.Store)(nil)

// Options shape a synthetic dataset.
type Options struct {
	Goals int    // number of objectives (required)
	Seed  uint64 // the same seed gives the same dataset (ids aside)
	// Users and Sessions to spread ownership over; zero means 8 and 2.
	Users    int
	Sessions int
	// Batch is the number of objectives (with their key results, check-ins
	// and tasks) written per commit when the Writer is a Batcher; zero
	// means 200.
	Batch int
	// Progress, when set, is called with the number of objectives written
	// so far after every batch.
	Progress func(goals int)
}

// Summary counts what a seeding created.
type Summary struct {
	Sessions []string `json:"sessions"`
	Users    int      `json:"users"`
	Goals    int      `json:"goals"`
	Metrics  int      `json:"metrics"`
	Tasks    int      `json:"tasks"`
	CheckIns int      `json:"checkIns"`
}

// Synthetic creates opt.Goals objectives in trees (a root with children and
// grandchildren, at most three levels), about three key results and two
// tasks per objective, spread over owners and sessions, in the account of
// the caller in ctx.
func Synthetic(ctx context.Context, st *sqlstore.Store, opt Options) (Summary, error) {
	return SyntheticTo(ctx, st, opt)
}

// SyntheticTo is Synthetic through any Writer.
func SyntheticTo(ctx context.Context, st Writer, opt Options) (Summary, error) {
	if opt.Goals <= 0 {
		return Summary{}, fmt.Errorf("seed: goals must be positive, got %d", opt.Goals)
	}
	if opt.Users <= 0 {
		opt.Users = 8
	}
	if opt.Sessions <= 0 {
		opt.Sessions = 2
	}
	rng := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))
	var sum Summary
	owners := make([]string, 0, opt.Users)
	c, _ := upstream.CallerFrom(ctx)
	owners = append(owners, c.UserID)
	for i := 1; i < opt.Users; i++ {
		u, err := st.CreateUser(ctx, upstream.UserInput{
			Email:     fmt.Sprintf("user%d.s%d@example.test", i, opt.Seed),
			FirstName: firstNames[i%len(firstNames)], LastName: fmt.Sprintf("Seed%d", i),
		})
		if err != nil {
			return sum, fmt.Errorf("seed: user %d: %w", i, err)
		}
		owners = append(owners, u.ID)
	}
	sum.Users = len(owners)
	for i := 0; i < opt.Sessions; i++ {
		s, err := st.CreateSession(ctx, upstream.SessionInput{
			Title: fmt.Sprintf("Q%d %d", i%4+1, 2026+i/4),
			Start: fmt.Sprintf("%d-%02d-01", 2026+i/4, (i%4)*3+1),
			End:   fmt.Sprintf("%d-%02d-28", 2026+i/4, (i%4)*3+3),
		})
		if err != nil {
			return sum, fmt.Errorf("seed: session %d: %w", i, err)
		}
		sum.Sessions = append(sum.Sessions, s.ID)
	}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	// Trees: each root gets up to 3 children, each child up to 3 grandchildren.
	var parents []upstream.Goal // candidates for children, with their depth
	depth := map[string]int{}
	goal := func(st Writer, i int) error {
		in := upstream.GoalInput{
			Name:      fmt.Sprintf("%s %s #%d", verbs[rng.IntN(len(verbs))], nouns[rng.IntN(len(nouns))], i+1),
			SessionID: pick(sum.Sessions),
			OwnerID:   pick(owners),
		}
		// One goal in four starts a new tree; the rest hang under an open parent.
		if len(parents) > 0 && rng.IntN(4) != 0 {
			p := parents[rng.IntN(len(parents))]
			in.ParentID, in.SessionID = p.ID, p.SessionID
		}
		if rng.IntN(5) == 0 {
			in.AttainmentTypeString = upstream.AverageKRAndChildren
		}
		g, err := st.CreateGoal(ctx, in)
		if err != nil {
			return fmt.Errorf("seed: goal %d: %w", i, err)
		}
		sum.Goals++
		depth[g.ID] = depth[in.ParentID] + 1
		if in.ParentID == "" {
			depth[g.ID] = 1
		}
		if depth[g.ID] < 3 {
			parents = append(parents, g)
			if len(parents) > 64 {
				parents = parents[1:]
			}
		}
		for k := 0; k < 2+rng.IntN(3); k++ { // 2..4 key results, about 3
			target := float64(10 * (1 + rng.IntN(20)))
			m, err := st.CreateMetric(ctx, upstream.MetricInput{
				Name: fmt.Sprintf("%s %d", metricNames[rng.IntN(len(metricNames))], k+1), GoalID: g.ID,
				OwnerID: pick(owners), InitialValue: 0, Target: &target,
			})
			if err != nil {
				return fmt.Errorf("seed: key result of goal %d: %w", i, err)
			}
			sum.Metrics++
			if rng.IntN(2) == 0 {
				actual := float64(rng.IntN(int(target) + 1))
				conf := float64(rng.IntN(11))
				if _, err := st.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &actual, Confidence: &conf}); err != nil {
					return fmt.Errorf("seed: check-in: %w", err)
				}
				sum.CheckIns++
			}
		}
		for k := 0; k < 1+rng.IntN(3); k++ { // 1..3 tasks, about 2
			status := []string{upstream.TaskTodo, upstream.TaskInProgress, upstream.TaskDone}[rng.IntN(3)]
			if _, err := st.CreateTask(ctx, upstream.TaskInput{Name: fmt.Sprintf("Task %d of goal %d", k+1, i+1),
				ParentID: g.ID, ParentType: upstream.ParentGoal, OwnerID: pick(owners), Status: status, Priority: rng.IntN(4)}); err != nil {
				return fmt.Errorf("seed: task: %w", err)
			}
			sum.Tasks++
		}
		return nil
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = 200
	}
	b, _ := st.(Batcher)
	for start := 0; start < opt.Goals; start += batch {
		end := min(start+batch, opt.Goals)
		run := func(st Writer) error {
			for i := start; i < end; i++ {
				if err := goal(st, i); err != nil {
					return err
				}
			}
			return nil
		}
		var err error
		if b != nil {
			before := sum
			if err = b.Bulk(ctx, func(batch *sqlstore.Store) error { return run(batch) }); err != nil {
				sum = before // rolled back
			}
		} else {
			err = run(st)
		}
		if err != nil {
			return sum, err
		}
		if opt.Progress != nil {
			opt.Progress(end)
		}
	}
	return sum, nil
}

var (
	firstNames  = []string{"Ada", "Grace", "Linus", "Barbara", "Ken", "Margaret", "Dennis", "Frances", "Alan", "Radia", "Edsger", "Hedy"}
	verbs       = []string{"Grow", "Launch", "Improve", "Reduce", "Delight", "Scale", "Simplify", "Win"}
	nouns       = []string{"revenue", "onboarding", "reliability", "churn", "customers", "the platform", "hiring", "margins"}
	metricNames = []string{"Weekly active users", "Net revenue", "Uptime", "NPS", "Tickets closed", "Deals won", "Latency p99", "Signups"}
)
