package resolvers

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/okrgate/okrgate/upstream"
)

// CallCounter counts upstream.API calls per method. It is safe for
// concurrent use; tests read it, and /metrics exports it.
type CallCounter struct {
	mu     sync.Mutex
	counts map[string]*atomic.Int64
	// OnCall, when set before use, is called once per upstream call (the
	// Prometheus counter hooks in here).
	OnCall func(method string)
}

// NewCallCounter returns an empty counter.
func NewCallCounter() *CallCounter { return &CallCounter{counts: map[string]*atomic.Int64{}} }

func (c *CallCounter) inc(method string) {
	c.mu.Lock()
	n, ok := c.counts[method]
	if !ok {
		n = new(atomic.Int64)
		c.counts[method] = n
	}
	c.mu.Unlock()
	n.Add(1)
	if c.OnCall != nil {
		c.OnCall(method)
	}
}

// Snapshot returns the calls per method so far.
func (c *CallCounter) Snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.counts))
	for k, v := range c.counts {
		if n := v.Load(); n > 0 {
			out[k] = n
		}
	}
	return out
}

// Total returns the number of calls so far.
func (c *CallCounter) Total() int64 {
	var t int64
	for _, n := range c.Snapshot() {
		t += n
	}
	return t
}

// Diff returns after minus before, per method, leaving out zeros.
func Diff(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// Methods lists the keys of m in order (for stable test output).
func Methods(m map[string]int64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Instrument wraps api so that every call is counted in c, per method.
func Instrument(api upstream.API, c *CallCounter) upstream.API {
	return &instrumented{API: api, c: c}
}

// instrumented counts the methods the GraphQL layer uses (and the other
// methods of the API as of this writing); methods added to upstream.API
// later pass through the embedded API uncounted until listed here.
type instrumented struct {
	upstream.API
	c *CallCounter
}

var _ upstream.API = (*instrumented)(nil)

func (i *instrumented) Authenticate(ctx context.Context, token string) (upstream.Caller, error) {
	i.c.inc("Authenticate")
	return i.API.Authenticate(ctx, token)
}

func (i *instrumented) ListGoals(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Goal], error) {
	i.c.inc("ListGoals")
	return i.API.ListGoals(ctx, q)
}

func (i *instrumented) GetGoal(ctx context.Context, id string) (upstream.Goal, error) {
	i.c.inc("GetGoal")
	return i.API.GetGoal(ctx, id)
}

func (i *instrumented) CreateGoal(ctx context.Context, in upstream.GoalInput) (upstream.Goal, error) {
	i.c.inc("CreateGoal")
	return i.API.CreateGoal(ctx, in)
}

func (i *instrumented) UpdateGoal(ctx context.Context, id string, in upstream.GoalPatch) (upstream.Goal, error) {
	i.c.inc("UpdateGoal")
	return i.API.UpdateGoal(ctx, id, in)
}

func (i *instrumented) DeleteGoal(ctx context.Context, id string) error {
	i.c.inc("DeleteGoal")
	return i.API.DeleteGoal(ctx, id)
}

func (i *instrumented) GoalsGroupedByOwners(ctx context.Context, q upstream.GroupByOwnersQuery) (upstream.GoalsGroupedBy, error) {
	i.c.inc("GoalsGroupedByOwners")
	return i.API.GoalsGroupedByOwners(ctx, q)
}

func (i *instrumented) AddGoalTag(ctx context.Context, goalID, title string) (upstream.Tag, bool, error) {
	i.c.inc("AddGoalTag")
	return i.API.AddGoalTag(ctx, goalID, title)
}

func (i *instrumented) GoalsMet(ctx context.Context, sessionID string, tags []string) ([]upstream.Goal, error) {
	i.c.inc("GoalsMet")
	return i.API.GoalsMet(ctx, sessionID, tags)
}

func (i *instrumented) ListMetrics(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Metric], error) {
	i.c.inc("ListMetrics")
	return i.API.ListMetrics(ctx, q)
}

func (i *instrumented) GetMetric(ctx context.Context, id string) (upstream.Metric, error) {
	i.c.inc("GetMetric")
	return i.API.GetMetric(ctx, id)
}

func (i *instrumented) CreateMetric(ctx context.Context, in upstream.MetricInput) (upstream.Metric, error) {
	i.c.inc("CreateMetric")
	return i.API.CreateMetric(ctx, in)
}

func (i *instrumented) UpdateMetric(ctx context.Context, id string, in upstream.MetricPatch) (upstream.Metric, error) {
	i.c.inc("UpdateMetric")
	return i.API.UpdateMetric(ctx, id, in)
}

func (i *instrumented) DeleteMetric(ctx context.Context, id string) error {
	i.c.inc("DeleteMetric")
	return i.API.DeleteMetric(ctx, id)
}

func (i *instrumented) CheckIn(ctx context.Context, metricID string, in upstream.CheckInInput) (upstream.CheckIn, error) {
	i.c.inc("CheckIn")
	return i.API.CheckIn(ctx, metricID, in)
}

func (i *instrumented) ListCheckIns(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.CheckIn], error) {
	i.c.inc("ListCheckIns")
	return i.API.ListCheckIns(ctx, q)
}

func (i *instrumented) GetCheckInSnapshot(ctx context.Context, checkInID string) (upstream.Metric, error) {
	i.c.inc("GetCheckInSnapshot")
	return i.API.GetCheckInSnapshot(ctx, checkInID)
}

func (i *instrumented) ListTasks(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Task], error) {
	i.c.inc("ListTasks")
	return i.API.ListTasks(ctx, q)
}

func (i *instrumented) GetTask(ctx context.Context, id string) (upstream.Task, error) {
	i.c.inc("GetTask")
	return i.API.GetTask(ctx, id)
}

func (i *instrumented) CreateTask(ctx context.Context, in upstream.TaskInput) (upstream.Task, error) {
	i.c.inc("CreateTask")
	return i.API.CreateTask(ctx, in)
}

func (i *instrumented) UpdateTask(ctx context.Context, id string, in upstream.TaskPatch) (upstream.Task, error) {
	i.c.inc("UpdateTask")
	return i.API.UpdateTask(ctx, id, in)
}

func (i *instrumented) DeleteTask(ctx context.Context, id string) error {
	i.c.inc("DeleteTask")
	return i.API.DeleteTask(ctx, id)
}

func (i *instrumented) ListSessions(ctx context.Context, q upstream.ListQuery, includeDemo bool) (upstream.Page[upstream.Session], error) {
	i.c.inc("ListSessions")
	return i.API.ListSessions(ctx, q, includeDemo)
}

func (i *instrumented) GetSession(ctx context.Context, id string) (upstream.Session, error) {
	i.c.inc("GetSession")
	return i.API.GetSession(ctx, id)
}

func (i *instrumented) CreateSession(ctx context.Context, in upstream.SessionInput) (upstream.Session, error) {
	i.c.inc("CreateSession")
	return i.API.CreateSession(ctx, in)
}

func (i *instrumented) UpdateSession(ctx context.Context, id string, in upstream.SessionPatch) (upstream.Session, error) {
	i.c.inc("UpdateSession")
	return i.API.UpdateSession(ctx, id, in)
}

func (i *instrumented) DeleteSession(ctx context.Context, id string) error {
	i.c.inc("DeleteSession")
	return i.API.DeleteSession(ctx, id)
}

func (i *instrumented) ListUsers(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.User], error) {
	i.c.inc("ListUsers")
	return i.API.ListUsers(ctx, q)
}

func (i *instrumented) GetUser(ctx context.Context, id string) (upstream.User, error) {
	i.c.inc("GetUser")
	return i.API.GetUser(ctx, id)
}

func (i *instrumented) ListTeams(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Team], error) {
	i.c.inc("ListTeams")
	return i.API.ListTeams(ctx, q)
}

func (i *instrumented) GetTeam(ctx context.Context, id string) (upstream.Team, error) {
	i.c.inc("GetTeam")
	return i.API.GetTeam(ctx, id)
}
