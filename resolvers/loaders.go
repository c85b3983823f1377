package resolvers

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/okrgate/okrgate/graph/fastpath"
	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Loaders are the edges of one request, one field per edge of the graph.
// Every edge loads a whole level of a query in one batch (see Edge), so a
// query costs one upstream call per level (one per 1000 keys or 1000
// results) however many parents the level has, and always the same calls
// for the same query and data.
//
// Never share Loaders between requests: a batch runs with the context, and
// so the caller, of the request that created it.
type Loaders struct {
	api     Services // for the edges built per field (arguments, see nested.go)
	mu      sync.Mutex
	batches map[batchKey]any // edge at path → *batch[T]
	levels  map[string][]any // path → the items resolved there
	strays  atomic.Int64     // keys loaded outside their level (see Edge.complete)
	fast    *fastpath.Cache  // which selections the fast path serves

	// Objectives.
	GoalParent    *Edge[upstream.Goal, upstream.Goal]
	GoalChildren  *Edge[upstream.Goal, upstream.Goal]
	GoalMetrics   *Edge[upstream.Goal, upstream.Metric]
	GoalTasks     *Edge[upstream.Goal, upstream.Task]
	GoalSession   *Edge[upstream.Goal, upstream.Session]
	GoalOwners    *Edge[upstream.Goal, model.Owner]
	GoalCreatedBy *Edge[upstream.Goal, upstream.User]
	GoalTags      *Edge[upstream.Goal, upstream.Tag]
	GoalETag      *Edge[upstream.Goal, string] // the etag fields (versions.go)
	MetricETag    *Edge[upstream.Metric, string]
	SessionETag   *Edge[upstream.Session, string]
	TaskETag      *Edge[upstream.Task, string]

	// Key results and tasks.
	MetricGoal     *Edge[upstream.Metric, upstream.Goal]
	MetricCheckins *Edge[upstream.Metric, upstream.CheckIn]
	MetricTasks    *Edge[upstream.Metric, upstream.Task]
	MetricOwners   *Edge[upstream.Metric, model.Owner]
	TaskGoal       *Edge[upstream.Task, upstream.Goal]
	TaskMetric     *Edge[upstream.Task, upstream.Metric]
	TaskOwner      *Edge[upstream.Task, model.Owner]

	// Sessions and tags.
	SessionParent    *Edge[upstream.Session, upstream.Session]
	SessionChildren  *Edge[upstream.Session, upstream.Session]
	SessionGoals     *Edge[upstream.Session, upstream.Goal]
	SessionRootGoals *Edge[upstream.Session, upstream.Goal]
	SessionTags      *Edge[upstream.Session, upstream.Tag]
	TagGoals         *Edge[upstream.Tag, upstream.Goal]
	TagDashboards    *Edge[upstream.Tag, upstream.Dashboard]
	TagDetailGoals   *Edge[upstream.TagDetail, upstream.Goal]
	TagDetailDashes  *Edge[upstream.TagDetail, upstream.Dashboard]

	// Organisation.
	TeamParent       *Edge[upstream.Team, upstream.Team]
	TeamChildren     *Edge[upstream.Team, upstream.Team]
	TeamMembers      *Edge[upstream.Team, upstream.User]
	TeamManager      *Edge[upstream.Team, upstream.User]
	TeamBadges       *Edge[upstream.Team, upstream.AssignedBadge]
	TeamRoles        *Edge[upstream.Team, model.RoleMapping]
	UserTeams        *Edge[upstream.User, upstream.Team]
	UserGoals        *Edge[upstream.User, upstream.Goal]
	UserBadges       *Edge[upstream.User, upstream.AssignedBadge]
	UserEmployee     *Edge[upstream.User, upstream.Employee]
	UserTeamRoles    *Edge[upstream.User, upstream.Role]
	UserRoleTeams    *Edge[upstream.User, upstream.Team]
	EmployeeUser     *Edge[upstream.Employee, upstream.User]
	EmployeeTeams    *Edge[upstream.Employee, upstream.Team]
	EmployeeManaged  *Edge[upstream.Employee, upstream.Team]
	EmployeeBadges   *Edge[upstream.Employee, upstream.AssignedBadge]
	AccountOwner     *Edge[upstream.Account, upstream.User]
	MappingRole      *Edge[model.RoleMapping, upstream.Role]
	MappingTeam      *Edge[model.RoleMapping, upstream.Team]
	BadgeHolders     *Edge[upstream.Badge, model.BadgeHolders]
	HolderUsers      *Edge[model.BadgeHolders, upstream.User]
	HolderTeams      *Edge[model.BadgeHolders, upstream.Team]
	AssignmentBadge  *Edge[upstream.AssignedBadge, upstream.Badge]
	AssignmentOwners *Edge[upstream.AssignedBadge, model.Owner]
	AssignmentBy     *Edge[upstream.AssignedBadge, upstream.User]

	// Content.
	AnnouncementAuthor *Edge[upstream.Announcement, upstream.User]
	DashboardTags      *Edge[upstream.Dashboard, upstream.Tag]
	UsageDashboards    *Edge[upstream.DashboardTagUsage, upstream.Dashboard]
	KPIGroups          *Edge[upstream.KPI, upstream.KPIGroup]
	KPIOwner           *Edge[upstream.KPI, upstream.User]
	KPIGroupKPIs       *Edge[upstream.KPIGroup, upstream.KPI]
	KPIGroupCreatedBy  *Edge[upstream.KPIGroup, upstream.User]
	ListCreatedBy      *Edge[upstream.List, upstream.User]

	// By id, for top-level fields and mutation read-backs, through a
	// dataloader (see Reads).
	Nodes    *Reads[model.Node] // any type (node, nodes; see node.go)
	Goals    *Reads[upstream.Goal]
	Metrics  *Reads[upstream.Metric]
	Sessions *Reads[upstream.Session]
	Teams    *Reads[upstream.Team]
	Users    *Reads[upstream.User]
}

// NewLoaders returns the loaders of one request over api.
func NewLoaders(api Services) *Loaders {
	l := &Loaders{api: api, batches: map[batchKey]any{}, levels: map[string][]any{}, fast: fastpath.NewCache()}

	goalID := func(g *upstream.Goal) string { return g.ID }
	metricID := func(m *upstream.Metric) string { return m.ID }
	sessionID := func(s *upstream.Session) string { return s.ID }
	userID := func(u *upstream.User) string { return u.ID }
	teamID := func(t *upstream.Team) string { return t.ID }

	goals := byID(api.ListGoals, goalID)
	metrics := byID(api.ListMetrics, metricID)
	sessions := byID(sessionLister(api), sessionID)
	users := byID(api.ListUsers, userID)
	teams := byID(api.ListTeams, teamID)
	dashboards := byID(api.ListDashboards, func(d *upstream.Dashboard) string { return d.ID })
	owner := owners(api)
	goalsBy := func(field string, extra *query.Expr, keys func(*upstream.Goal, []string) []string) fetcher[upstream.Goal] {
		return byField(api.ListGoals, field, extra, keys, goalID)
	}
	tasksByParent := byField(api.ListTasks, "parentId", nil, key(func(t *upstream.Task) string { return t.ParentID }), func(t *upstream.Task) string { return t.ID })
	badgesByHolder := byField(api.ListAssignedBadges, "assigneeIds", query.Eq("status", upstream.BadgeApproved),
		func(a *upstream.AssignedBadge, dst []string) []string { return append(dst, a.AssigneeIDs...) }, func(a *upstream.AssignedBadge) string { return a.ID })
	mappings := roleMappings(api)

	l.GoalParent = edge(l, "GoalParent", key(func(g *upstream.Goal) string {
		if g.ParentType != "" && g.ParentType != upstream.ParentGoal {
			return ""
		}
		return g.ParentID
	}), goals)
	l.GoalChildren = edge(l, "GoalChildren", key(goalID), goalsBy("parentId", nil, key(func(g *upstream.Goal) string { return g.ParentID })))
	l.GoalMetrics = edge(l, "GoalMetrics", key(goalID), byField(api.ListMetrics, "goalId", nil, key(func(m *upstream.Metric) string { return m.GoalID }), metricID))
	l.GoalTasks = edge(l, "GoalTasks", key(goalID), tasksByParent)
	l.GoalSession = edge(l, "GoalSession", key(func(g *upstream.Goal) string { return g.SessionID }), sessions)
	l.GoalOwners = edge(l, "GoalOwners", keys(func(g *upstream.Goal) []string { return g.OwnerIDs }), owner)
	l.GoalCreatedBy = edge(l, "GoalCreatedBy", key(func(g *upstream.Goal) string { return g.CreatedByID }), users)
	l.GoalTags = embeddedEdge(l, "GoalTags", goalID, func(g *upstream.Goal) []upstream.Tag { return g.Tags })

	l.MetricGoal = edge(l, "MetricGoal", key(func(m *upstream.Metric) string { return m.GoalID }), goals)
	l.MetricCheckins = edge(l, "MetricCheckins", key(metricID), byField(api.ListCheckIns, "metricId", nil,
		key(func(c *upstream.CheckIn) string { return c.MetricID }), func(c *upstream.CheckIn) string { return c.ID }))
	l.MetricTasks = edge(l, "MetricTasks", key(metricID), tasksByParent)
	l.MetricOwners = edge(l, "MetricOwners", keys(func(m *upstream.Metric) []string { return m.OwnerIDs }), owner)
	l.TaskGoal = edge(l, "TaskGoal", taskParent(upstream.ParentGoal), goals)
	l.TaskMetric = edge(l, "TaskMetric", taskParent(upstream.ParentMetric), metrics)
	l.TaskOwner = edge(l, "TaskOwner", key(func(t *upstream.Task) string { return t.OwnerID }), owner)

	l.SessionParent = edge(l, "SessionParent", key(func(s *upstream.Session) string { return s.ParentID }), sessions)
	l.SessionChildren = edge(l, "SessionChildren", key(sessionID), byField(sessionLister(api), "parentId", nil,
		key(func(s *upstream.Session) string { return s.ParentID }), sessionID))
	bySession := key(func(g *upstream.Goal) string { return g.SessionID })
	l.SessionGoals = edge(l, "SessionGoals", key(sessionID), goalsBy("sessionId", nil, bySession))
	l.SessionRootGoals = edge(l, "SessionRootGoals", key(sessionID), goalsBy("sessionId", query.Eq("parentId", ""), bySession))
	l.SessionTags = embeddedEdge(l, "SessionTags", sessionID, func(s *upstream.Session) []upstream.Tag { return s.Tags })
	goalsByTag := itemsByTag(api, upstream.TaggedGoal, goals)
	dashboardsByTag := itemsByTag(api, upstream.TaggedDashboard, dashboards)
	l.TagGoals = edge(l, "TagGoals", key(func(t *upstream.Tag) string { return t.ID }), goalsByTag)
	l.TagDashboards = edge(l, "TagDashboards", key(func(t *upstream.Tag) string { return t.ID }), dashboardsByTag)
	l.TagDetailGoals = edge(l, "TagDetailGoals", key(func(t *upstream.TagDetail) string { return t.ID }), goalsByTag)
	l.TagDetailDashes = edge(l, "TagDetailDashes", key(func(t *upstream.TagDetail) string { return t.ID }), dashboardsByTag)

	l.TeamParent = edge(l, "TeamParent", key(func(t *upstream.Team) string { return t.ParentID }), teams)
	l.TeamChildren = edge(l, "TeamChildren", key(teamID), byField(api.ListTeams, "parentId", nil,
		key(func(t *upstream.Team) string { return t.ParentID }), teamID))
	l.TeamMembers = edge(l, "TeamMembers", keys(func(t *upstream.Team) []string { return t.Members }), users)
	l.TeamManager = edge(l, "TeamManager", key(func(t *upstream.Team) string { return t.Manager }), users)
	l.TeamBadges = edge(l, "TeamBadges", key(teamID), badgesByHolder)
	l.TeamRoles = edge(l, "TeamRoles", key(teamID), asRoleMappings(mappings))
	l.UserTeams = edge(l, "UserTeams", keys(func(u *upstream.User) []string { return u.TeamIDs }), teams)
	l.UserGoals = edge(l, "UserGoals", key(userID), goalsBy("ownerIds", nil, func(g *upstream.Goal, dst []string) []string { return append(dst, g.OwnerIDs...) }))
	l.UserBadges = edge(l, "UserBadges", key(userID), badgesByHolder)
	l.UserEmployee = edge(l, "UserEmployee", key(userID), byID(api.ListEmployees, func(e *upstream.Employee) string { return e.ID }))
	l.UserTeamRoles = edge(l, "UserTeamRoles", keys(func(u *upstream.User) []string { return u.TeamIDs }), mappings)
	l.UserRoleTeams = edge(l, "UserRoleTeams", keys(func(u *upstream.User) []string { return u.TeamIDs }), teams)
	l.UserRoleTeams.sub = "team" // the teams are the level of UserRole.team
	l.EmployeeUser = edge(l, "EmployeeUser", key(func(e *upstream.Employee) string { return e.ID }), users)
	l.EmployeeTeams = edge(l, "EmployeeTeams", keys(func(e *upstream.Employee) []string { return e.TeamIDs }), teams)
	l.EmployeeManaged = edge(l, "EmployeeManaged", keys(func(e *upstream.Employee) []string { return e.ManagedTeamIDs }), teams)
	l.EmployeeBadges = edge(l, "EmployeeBadges", key(func(e *upstream.Employee) string { return e.ID }), badgesByHolder)
	l.AccountOwner = edge(l, "AccountOwner", key(func(a *upstream.Account) string { return a.OwnerID }), users)
	l.MappingRole = edge(l, "MappingRole", key(func(r *model.RoleMapping) string { return r.ID }),
		byID(api.ListRoles, func(r *upstream.Role) string { return r.ID }))
	l.MappingTeam = edge(l, "MappingTeam", key(func(r *model.RoleMapping) string { return r.TeamID }), teams)
	l.BadgeHolders = edge(l, "BadgeHolders", key(func(b *upstream.Badge) string { return b.ID }), holders(api))
	holderIDs := keys(func(h *model.BadgeHolders) []string {
		if h.Preloaded {
			return nil
		}
		return h.AssigneeIDs
	})
	l.HolderUsers = edge(l, "HolderUsers", holderIDs, users)
	l.HolderTeams = edge(l, "HolderTeams", holderIDs, teams)
	l.AssignmentBadge = assignmentBadge(l, byID(api.ListBadges, func(b *upstream.Badge) string { return b.ID }))
	l.AssignmentOwners = edge(l, "AssignmentOwners", keys(func(a *upstream.AssignedBadge) []string { return a.AssigneeIDs }), owner)
	l.AssignmentBy = edge(l, "AssignmentBy", key(func(a *upstream.AssignedBadge) string { return a.AssignedByID }), users)

	l.AnnouncementAuthor = edge(l, "AnnouncementAuthor", key(func(a *upstream.Announcement) string { return a.AuthorID }), users)
	l.DashboardTags = embeddedEdge(l, "DashboardTags", func(d *upstream.Dashboard) string { return d.ID }, func(d *upstream.Dashboard) []upstream.Tag { return d.Tags })
	l.UsageDashboards = edge(l, "UsageDashboards", keys(func(u *upstream.DashboardTagUsage) []string { return u.DashboardsIDs }), dashboards)
	kpiGroupID := func(g *upstream.KPIGroup) string { return g.ID }
	l.KPIGroups = edge(l, "KPIGroups", keys(func(k *upstream.KPI) []string { return k.GroupIDs }), byID(api.ListKPIGroups, kpiGroupID))
	l.KPIOwner = edge(l, "KPIOwner", key(func(k *upstream.KPI) string { return k.OwnerID }), users)
	l.KPIGroupKPIs = edge(l, "KPIGroupKPIs", key(kpiGroupID), byField(api.ListKPIs, "groupIds", nil,
		func(k *upstream.KPI, dst []string) []string { return append(dst, k.GroupIDs...) }, func(k *upstream.KPI) string { return k.ID }))
	l.KPIGroupCreatedBy = edge(l, "KPIGroupCreatedBy", key(func(g *upstream.KPIGroup) string { return g.CreatedByID }), users)
	l.ListCreatedBy = edge(l, "ListCreatedBy", key(func(x *upstream.List) string { return x.CreatedByID }), users)

	l.GoalETag = edge(l, "GoalETag", key(goalID), versionsOf(api, upstream.KindGoal))
	l.MetricETag = edge(l, "MetricETag", key(metricID), versionsOf(api, upstream.KindMetric))
	l.SessionETag = edge(l, "SessionETag", key(sessionID), versionsOf(api, upstream.KindSession))
	l.TaskETag = edge(l, "TaskETag", key(func(t *upstream.Task) string { return t.ID }), versionsOf(api, upstream.KindTask))

	l.Nodes = newReads(l, "Nodes", map[string]string{"node": "id", "nodes": "ids"}, nodesByID(api))
	l.Goals = newReads(l, "Goals", map[string]string{"goal": "id"}, goals)
	l.Metrics = newReads(l, "Metrics", map[string]string{"metric": "id"}, metrics)
	l.Sessions = newReads(l, "Sessions", map[string]string{"session": "id"}, sessions)
	l.Teams = newReads(l, "Teams", map[string]string{"team": "id"}, teams)
	l.Users = newReads(l, "Users", map[string]string{"user": "id"}, users)
	return l
}

// Reset drops every batch and level; mutations call it so that what they
// return is read after the write.
func (l *Loaders) Reset() {
	l.mu.Lock()
	l.batches = map[batchKey]any{}
	l.levels = map[string][]any{}
	l.mu.Unlock()
	l.Nodes.reset()
	l.Goals.reset()
	l.Metrics.reset()
	l.Sessions.reset()
	l.Teams.reset()
	l.Users.reset()
}

// Stray returns how many times a parent's keys were loaded outside the
// batch of its level (a parent whose level no batch recorded). Tests assert
// it stays 0 for the queries they run.
func (l *Loaders) Stray() int64 { return l.strays.Load() }

// edge returns an edge whose fetch needs only the keys.
func edge[P, T any](l *Loaders, name string, keys func(*P, []string) []string, f fetcher[T]) *Edge[P, T] {
	return &Edge[P, T]{l: l, name: name, keys: keys, fetch: func(ctx context.Context, keys []string, _ []*P, q fetchArgs) (map[string][]T, error) {
		return f(ctx, keys, q)
	}}
}

// embeddedEdge returns an edge over items embedded in their parent (a
// goal's tags): no upstream call, but a level like any other, so the edges
// below it (Tag.goals) batch.
func embeddedEdge[P, T any](l *Loaders, name string, id func(*P) string, items func(*P) []T) *Edge[P, T] {
	return &Edge[P, T]{l: l, name: name, keys: key(id), fetch: func(_ context.Context, _ []string, parents []*P, _ fetchArgs) (map[string][]T, error) {
		out := make(map[string][]T, len(parents))
		for _, p := range parents {
			if v := items(p); v != nil {
				out[id(p)] = v
			}
		}
		return out, nil
	}}
}

// assignmentBadge is AssignedBadge.badge: the badge the assignment embeds
// (myBadges) or, for the others, the badge loaded by id.
func assignmentBadge(l *Loaders, badges fetcher[upstream.Badge]) *Edge[upstream.AssignedBadge, upstream.Badge] {
	return &Edge[upstream.AssignedBadge, upstream.Badge]{l: l, name: "AssignmentBadge",
		keys: key(badgeOf),
		fetch: func(ctx context.Context, keys []string, parents []*upstream.AssignedBadge, q fetchArgs) (map[string][]upstream.Badge, error) {
			out := map[string][]upstream.Badge{}
			for _, a := range parents {
				if a.Badge != nil {
					out[badgeOf(a)] = []upstream.Badge{*a.Badge}
				}
			}
			var rest []string
			for _, k := range keys {
				if _, ok := out[k]; !ok {
					rest = append(rest, k)
				}
			}
			if len(rest) == 0 {
				return out, nil
			}
			more, err := badges(ctx, rest, q)
			for k, v := range more {
				out[k] = v
			}
			return out, err
		}}
}

// badgeOf is the id of an assignment's badge.
func badgeOf(a *upstream.AssignedBadge) string {
	if a.Badge != nil {
		return a.Badge.ID
	}
	return a.BadgeID
}

// key adapts a single-key function to an edge's keys; "" is no key.
func key[P any](f func(*P) string) func(*P, []string) []string {
	return func(p *P, dst []string) []string {
		if k := f(p); k != "" {
			return append(dst, k)
		}
		return dst
	}
}

// keys adapts a multi-key function to an edge's keys.
func keys[P any](f func(*P) []string) func(*P, []string) []string {
	return func(p *P, dst []string) []string { return append(dst, f(p)...) }
}

// taskParent is the key of a task's parent when the parent is of kind.
func taskParent(kind string) func(*upstream.Task, []string) []string {
	return key(func(t *upstream.Task) string {
		if t.ParentType != kind {
			return ""
		}
		return t.ParentID
	})
}

func sessionLister(api upstream.SessionService) lister[upstream.Session] {
	return func(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Session], error) {
		return api.ListSessions(ctx, q, true)
	}
}

// loadersKey is the key of a request's loaders in its memo.
type loadersKey struct{}

// WithLoaders returns ctx with l as the loaders of its request, held by
// the request's memo (upstream.Memo, the one place for per-request state):
// ctx's own, or a new one when ctx has none or one that holds another
// operation's loaders already.
func WithLoaders(ctx context.Context, l *Loaders) context.Context {
	m := upstream.MemoFrom(ctx)
	if m == nil || m.Attached(loadersKey{}) != nil {
		ctx = upstream.WithMemo(ctx)
		m = upstream.MemoFrom(ctx)
	}
	m.Attach(loadersKey{}, l)
	return ctx
}

// For returns the loaders of the request in ctx. It panics without them:
// LoaderMiddleware is part of every GraphQL handler.
func For(ctx context.Context) *Loaders {
	l := LoadersFrom(ctx)
	if l == nil {
		panic("resolvers: no loaders in the request context (LoaderMiddleware missing)")
	}
	return l
}

// LoadersFrom returns the loaders of the request in ctx, or nil.
func LoadersFrom(ctx context.Context) *Loaders {
	m := upstream.MemoFrom(ctx)
	if m == nil {
		return nil
	}
	l, _ := m.Attached(loadersKey{}).(*Loaders)
	return l
}

// fastCache returns the fast path's memory of the request (nil without
// loaders: then the fast path examines each selection anew).
func (l *Loaders) fastCache() *fastpath.Cache {
	if l == nil {
		return nil
	}
	return l.fast
}

// LoaderMiddleware creates fresh loaders for every request; c, when not
// nil, counts their stray loads.
func LoaderMiddleware(api Services, c Counters, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := NewLoaders(api)
		next.ServeHTTP(w, r.WithContext(WithLoaders(r.Context(), l)))
		if n := l.Stray(); n > 0 && c != nil {
			c.AddStrayLoads(int(n))
		}
	})
}
