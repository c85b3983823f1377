package seed

import (
	"context"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// Demo fills the account of the caller in ctx with a small, readable company:
// two sessions (the current quarter open, the last one closed), three teams,
// a dozen users and an objective tree four levels deep with key results,
// check-ins and tasks.
func Demo(ctx context.Context, st *sqlstore.Store) (Summary, error) {
	var sum Summary
	c, _ := upstream.CallerFrom(ctx)
	people := []struct{ first, last, email string }{
		{"Maya", "Lind", "maya@demo.test"}, {"Omar", "Haddad", "omar@demo.test"}, {"Lena", "Kowalski", "lena@demo.test"},
		{"Ravi", "Iyer", "ravi@demo.test"}, {"Sofia", "Marino", "sofia@demo.test"}, {"Tom", "Becker", "tom@demo.test"},
		{"Aiko", "Tanaka", "aiko@demo.test"}, {"Jonas", "Berg", "jonas@demo.test"}, {"Nia", "Okafor", "nia@demo.test"},
		{"Pablo", "Reyes", "pablo@demo.test"}, {"Ines", "Duarte", "ines@demo.test"},
	}
	ids := []string{c.UserID}
	for _, p := range people {
		u, err := st.CreateUser(ctx, sqlstore.UserInput{Email: p.email, FirstName: p.first, LastName: p.last})
		if err != nil {
			return sum, fmt.Errorf("demo: user %s: %w", p.email, err)
		}
		ids = append(ids, u.ID)
	}
	sum.Users = len(ids)
	eng, err := st.CreateTeam(ctx, sqlstore.TeamInput{Name: "Engineering", Color: "#3b82f6", Manager: ids[1], Members: ids[1:5]})
	if err != nil {
		return sum, fmt.Errorf("demo: team: %w", err)
	}
	if _, err := st.CreateTeam(ctx, sqlstore.TeamInput{Name: "Platform", Color: "#10b981", ParentID: eng.ID, Manager: ids[3], Members: ids[3:7]}); err != nil {
		return sum, fmt.Errorf("demo: team: %w", err)
	}
	sales, err := st.CreateTeam(ctx, sqlstore.TeamInput{Name: "Sales", Color: "#f59e0b", Manager: ids[7], Members: ids[7:12]})
	if err != nil {
		return sum, fmt.Errorf("demo: team: %w", err)
	}
	last, err := st.CreateSession(ctx, upstream.SessionInput{Title: "Q3 2026", Start: "2026-07-01", End: "2026-09-30", Color: "#94a3b8"})
	if err != nil {
		return sum, fmt.Errorf("demo: session: %w", err)
	}
	cur, err := st.CreateSession(ctx, upstream.SessionInput{Title: "Q4 2026", Start: "2026-10-01", End: "2026-12-31", Color: "#6366f1",
		Settings: &upstream.SessionSettings{GoalsPerOwnerLimit: 10, MetricsPerGoalLimit: 8}})
	if err != nil {
		return sum, fmt.Errorf("demo: session: %w", err)
	}
	sum.Sessions = []string{cur.ID, last.ID}

	type kr struct {
		name            string
		initial, target float64
		op              string
		actuals         []float64
	}
	type node struct {
		name, owner, mode string
		krs               []kr
		tasks             []string
		kids              []node
	}
	tree := node{name: "Become the default OKR tool for mid-size companies", owner: ids[0], mode: upstream.AverageChildren, kids: []node{
		{name: "Ship a product teams love", owner: eng.ID, mode: upstream.AverageKRAndChildren,
			krs: []kr{{"Weekly active teams", 120, 300, upstream.AtLeast, []float64{150, 190, 240}}},
			kids: []node{
				{name: "Make the app fast", owner: ids[3], krs: []kr{
					{"p99 page load (ms)", 1800, 600, upstream.AtMost, []float64{1500, 1100}},
					{"Crash-free sessions (%)", 97, 99.5, upstream.AtLeast, []float64{98.2}}},
					tasks: []string{"Profile the dashboard query", "Cache session trees"},
					kids: []node{{name: "Batch every GraphQL edge", owner: ids[4], krs: []kr{
						{"Backend calls per tree query", 40, 4, upstream.AtMost, []float64{12, 5}}},
						tasks: []string{"Add dataloaders", "Count store queries in /metrics"}}}},
				{name: "Delight new users", owner: ids[2], krs: []kr{
					{"Activation rate (%)", 30, 55, upstream.AtLeast, []float64{34, 41}},
					{"Onboarding NPS", 20, 50, upstream.AtLeast, nil}},
					tasks: []string{"Rewrite the welcome tour"}}}},
		{name: "Grow revenue in EMEA", owner: sales.ID, krs: []kr{
			{"New ARR (k€)", 0, 1200, upstream.AtLeast, []float64{300, 520, 610}},
			{"Deals lost to price", 0, 5, upstream.StayBelow, []float64{3}}},
			tasks: []string{"Hire two account executives", "Localise pricing page"},
			kids: []node{{name: "Land 10 lighthouse customers", owner: ids[8], krs: []kr{
				{"Signed lighthouse logos", 0, 10, upstream.AtLeast, []float64{4}}}}}},
	}}
	var create func(n node, parent string) error
	create = func(n node, parent string) error {
		g, err := st.CreateGoal(ctx, upstream.GoalInput{Name: n.name, SessionID: cur.ID, ParentID: parent, OwnerID: n.owner,
			AttainmentTypeString: n.mode, Description: fmt.Sprintf("Owned by @[%s:%s:%s]", "Maya Lind", "maya@demo.test", ids[1])})
		if err != nil {
			return fmt.Errorf("demo: goal %q: %w", n.name, err)
		}
		sum.Goals++
		for _, k := range n.krs {
			target := k.target
			m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: k.name, GoalID: g.ID, OwnerID: n.owner,
				InitialValue: k.initial, Target: &target, TargetOperator: k.op})
			if err != nil {
				return fmt.Errorf("demo: key result %q: %w", k.name, err)
			}
			sum.Metrics++
			for _, a := range k.actuals {
				actual := a
				if _, err := st.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &actual, Comment: "weekly update"}); err != nil {
					return fmt.Errorf("demo: check-in: %w", err)
				}
				sum.CheckIns++
			}
		}
		for i, t := range n.tasks {
			status := []string{upstream.TaskInProgress, upstream.TaskTodo, upstream.TaskDone}[i%3]
			if _, err := st.CreateTask(ctx, upstream.TaskInput{Name: t, ParentID: g.ID, Status: status, OwnerID: ids[(i+2)%len(ids)]}); err != nil {
				return fmt.Errorf("demo: task %q: %w", t, err)
			}
			sum.Tasks++
		}
		for _, k := range n.kids {
			if err := create(k, g.ID); err != nil {
				return err
			}
		}
		return nil
	}
	if err := create(tree, ""); err != nil {
		return sum, err
	}
	old, err := st.CreateGoal(ctx, upstream.GoalInput{Name: "Close the Series B", SessionID: last.ID, OwnerID: ids[0]})
	if err != nil {
		return sum, fmt.Errorf("demo: goal: %w", err)
	}
	target := 1.0
	m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: "Term sheet signed", GoalID: old.ID, ManualType: upstream.TypeBool, Target: &target})
	if err != nil {
		return sum, fmt.Errorf("demo: key result: %w", err)
	}
	if _, err := st.CheckIn(ctx, m.ID, upstream.CheckInInput{Actual: &target}); err != nil {
		return sum, fmt.Errorf("demo: check-in: %w", err)
	}
	sum.Goals, sum.Metrics, sum.CheckIns = sum.Goals+1, sum.Metrics+1, sum.CheckIns+1
	if _, err := st.UpdateGoal(ctx, old.ID, upstream.GoalPatch{ClosedStatus: &upstream.ClosedStatus{Status: upstream.GoalAchieved}}); err != nil {
		return sum, fmt.Errorf("demo: close goal: %w", err)
	}
	closed := upstream.SessionClosed
	if _, err := st.UpdateSession(ctx, last.ID, upstream.SessionPatch{Status: &closed}); err != nil {
		return sum, fmt.Errorf("demo: close session: %w", err)
	}
	return sum, nil
}
