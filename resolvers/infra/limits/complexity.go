package limits

import (
	"github.com/okrgate/okrgate/graph"
	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
)

// Page sizes of connections and nested lists: first when absent, and the
// largest first a resolver accepts (a larger one is refused).
const (
	DefaultFirst = 20
	MaxFirst     = 100
)

// Estimated sizes of edge lists, for the cost bound. A field costs 1 plus
// its selections; a connection multiplies its selections by first; an edge
// list multiplies them by its estimate here. The estimates are generous
// averages of real OKR data (a few children, key results and tasks per
// objective), not maxima: the bound is about refusing abusive shapes, not
// about predicting exact row counts.
const (
	EstChildren = 5  // Goal.children, Session.children, Team.children
	EstMetrics  = 5  // Goal.metrics
	EstTasks    = 5  // Goal.tasks, Metric.tasks
	EstCheckins = 10 // Metric.checkins
	EstOwners   = 2  // owners
	EstGoals    = 50 // Session.goals, User.goals
	EstMembers  = 20 // Team.members, User.teams
	EstTagged   = 50 // Tag.goals, Tag.dashboards (and on TagDetail)
	EstBadges   = 5  // User.badges, Team.badges, Employee.badges
	EstRoles    = 5  // User.roles, Team.roles
	EstKPIs     = 20 // KpiGroup.kpis
	EstGroups   = 5  // Kpi.groups
	EstMappings = 50 // roleMappings (the account's mappings, unpaged)
	EstHolders  = 20 // BadgeHolders.users, BadgeHolders.teams
	EstByTag    = 50 // dashboardsByTag, dashboardTagUsages (unpaged), DashboardTagUsage.dashboards
	EstReports  = 20 // dashboardReports (unpaged)
	// Lists stored inside their parent's document or computed without a
	// read: no upstream call, but every element is a node of the answer.
	EstTags        = 2  // Goal.tags, Session.tags, Dashboard.tags
	EstAssignees   = 2  // Goal.assignees, Metric.assignees
	EstPermissions = 2  // Access.permissions, Session.permissions
	EstInsights    = 5  // Dashboard.insights
	EstParameters  = 2  // Dashboard.parameters
	EstReactions   = 5  // Announcement.reactions
	EstTokens      = 10 // myTokens (the caller's own tokens, unpaged)
	EstVersion     = 10 // etag: one store read per object
	EstColumns     = 10 // List.columns, List.fields, ListSchema.fields, ListSchema.customFieldsProperties
	EstSmall       = 5  // Employee.roles, ConfidenceSettings.confidenceMapping, Account.subscriptions
	EstActions     = 30 // Query.actions (the catalogue)
)

func mul(c, n int) int {
	if c > 1<<40/max(n, 1) {
		return 1 << 40
	}
	return c * n
}

// firstOr is a connection's multiplier: first, capped at MaxFirst (a larger
// first is refused by the resolver, which must not make the estimate
// overflow), or DefaultFirst when absent.
func firstOr(first *int) int {
	if first == nil {
		return DefaultFirst
	}
	return min(max(*first, 1), MaxFirst)
}

// SetComplexity installs the cost functions on cfg: the estimated cost of
// an operation that gqlgen's FixedComplexityLimit bounds.
func SetComplexity(cfg *graph.Config) {
	c := &cfg.Complexity
	type conn = func(child int, first *int, after *string, filter map[string]any, orderBy []model.Order) int
	paged := func(child int, first *int, _ *string, _ map[string]any, _ []model.Order) int {
		return mul(child, firstOr(first))
	}
	c.Query.Goals, c.Query.Metrics, c.Query.Checkins, c.Query.Tasks, c.Query.Teams, c.Query.Users = conn(paged), paged, paged, paged, paged, paged
	c.Query.Sessions = func(child int, first *int, _ *string, _ map[string]any, _ []model.Order, _ *bool) int {
		return mul(child, firstOr(first))
	}
	est := func(n int) func(int) int { return func(child int) int { return mul(child, n) } }
	// A nested list with arguments costs first (bounded by MaxFirst) per
	// parent when given, else the estimate; its connection form first (or
	// DefaultFirst), like a top-level connection.
	type nested = func(child int, filter map[string]any, orderBy []model.Order, first *int) int
	upTo := func(n int) nested {
		return func(child int, _ map[string]any, _ []model.Order, first *int) int {
			if first != nil {
				return mul(child, min(max(*first, 1), MaxFirst))
			}
			return mul(child, n)
		}
	}
	type nestedConn = func(child int, first *int, after *string, filter map[string]any, orderBy []model.Order) int
	var nconn nestedConn = paged
	c.Goal.Children, c.Goal.Metrics, c.Goal.Tasks, c.Goal.Owners = upTo(EstChildren), upTo(EstMetrics), upTo(EstTasks), est(EstOwners)
	c.Goal.ChildrenConnection, c.Goal.MetricsConnection, c.Goal.TasksConnection = nconn, nconn, nconn
	c.Metric.Checkins, c.Metric.Tasks, c.Metric.Owners = upTo(EstCheckins), upTo(EstTasks), est(EstOwners)
	c.Metric.CheckinsConnection, c.Metric.TasksConnection = nconn, nconn
	c.Session.Children = est(EstChildren)
	c.Session.Goals = func(child int, _ *bool, filter map[string]any, orderBy []model.Order, first *int) int {
		return upTo(EstGoals)(child, filter, orderBy, first)
	}
	c.Session.GoalsConnection = func(child int, _ *bool, first *int, after *string, filter map[string]any, orderBy []model.Order) int {
		return paged(child, first, after, filter, orderBy)
	}
	c.Team.Children, c.Team.Members, c.Team.MembersConnection = est(EstChildren), upTo(EstMembers), nconn
	// node costs its selection; nodes its selection per id.
	c.Query.Nodes = func(child int, ids []string) int { return mul(child, max(len(ids), 1)) }
	// _entities (federation) likewise per representation.
	graph.SetEntitiesComplexity(c, func(child int, reps []map[string]any) int { return mul(child, max(len(reps), 1)) })
	c.User.Goals, c.User.Teams = est(EstGoals), est(EstMembers)

	// Organisation and content.
	c.Query.Employees, c.Query.Roles, c.Query.Dashboards, c.Query.DashboardParameters = paged, paged, paged, paged
	c.Query.Badges, c.Query.BadgeApprovals, c.Query.KpiGroups, c.Query.Kpis = paged, paged, paged, paged
	c.Query.Lists, c.Query.Announcements, c.Query.Comments = paged, paged, paged
	c.Query.Tags = func(child int, _ *string, first *int, _ *string, _ map[string]any, _ []model.Order) int {
		return mul(child, firstOr(first))
	}
	c.Query.MyBadges = func(child int, first *int, _ *string) int { return mul(child, firstOr(first)) }
	c.Query.RoleMappings = est(EstMappings)
	c.Tag.Goals, c.Tag.Dashboards = est(EstTagged), est(EstTagged)
	c.TagDetail.Goals, c.TagDetail.Dashboards = est(EstTagged), est(EstTagged)
	c.User.Badges, c.Team.Badges, c.Employee.Badges = est(EstBadges), est(EstBadges), est(EstBadges)
	c.User.Roles = func(child int, _ *bool) int { return mul(child, EstRoles) }
	c.Team.Roles = est(EstRoles)
	c.Employee.Teams, c.Employee.ManagedTeams = est(EstMembers), est(EstMembers)
	c.KpiGroup.Kpis, c.Kpi.Groups = est(EstKPIs), est(EstGroups)
	c.AssignedBadge.Assignees = est(EstOwners)
	c.BadgeHolders.Users, c.BadgeHolders.Teams = est(EstHolders), est(EstHolders)
	c.Query.DashboardsByTag = func(child int, _ string) int { return mul(child, EstByTag) }
	c.Query.DashboardTagUsages, c.Query.DashboardReports = est(EstByTag), est(EstReports)
	c.DashboardTagUsage.Dashboards = est(EstByTag)
	// Lists embedded in their parent or computed without a read.
	c.List.Columns, c.List.Fields = est(EstColumns), est(EstColumns)
	c.ListSchema.Fields, c.ListSchema.CustomFieldsProperties = est(EstColumns), est(EstColumns)
	c.Access.Permissions, c.Session.Permissions = est(EstPermissions), est(EstPermissions)
	c.Session.Tags, c.Goal.Tags, c.Dashboard.Tags = est(EstTags), est(EstTags), est(EstTags)
	c.Goal.Assignees, c.Metric.Assignees = est(EstAssignees), est(EstAssignees)
	c.Dashboard.Insights, c.Dashboard.Parameters = est(EstInsights), est(EstParameters)
	c.Announcement.Reactions = est(EstReactions)
	c.Employee.Roles, c.ConfidenceSettings.ConfidenceMapping, c.Account.Subscriptions = est(EstSmall), est(EstSmall), est(EstSmall)
	// Typed nested structures (graph/schema/blobs.graphqls).
	c.Cadence.Ranges, c.GoalWorkflow.Reviewers, c.DesignScore.Policies = est(EstSmall), est(EstSmall), est(EstSmall)
	c.LinksExpanded.Goals, c.LinksExpanded.Metrics, c.LinksExpanded.Sessions = est(EstSmall), est(EstSmall), est(EstSmall)
	c.Setting.DynamicValues, c.Metric.Settings, c.Task.Snapshots = est(EstSmall), est(EstSmall), est(EstSmall)
	c.SessionSummary.Permissions, c.GoalSummary.Assignees = est(EstPermissions), est(EstAssignees)
	c.Query.Actions = est(EstActions)
	c.Query.MyTokens = est(EstTokens)
	version := func(int) int { return EstVersion }
	c.Goal.Etag, c.Metric.Etag, c.Task.Etag, c.Session.Etag = version, version, version, version
	c.Mutation.CreateTags = func(child int, titles []string) int { return mul(child, max(len(titles), 1)) }
	// The deprecated listing pages by take (default upstream.DefaultLimit).
	c.Query.LegacyUsers = func(child int, _ *string, _ *int, take *int, _ *bool) int {
		n := upstream.DefaultLimit
		if take != nil {
			n = max(*take, 1)
		}
		return mul(child, n)
	}
}
