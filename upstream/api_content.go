package upstream

import "context"

// TagService serves the tag listing, creation and activation, and tagging
// of dashboards and insights (goals: GoalService.AddGoalTag). A tag's
// identity is TagName(title); tagging an item creates the tag on first use.
type TagService interface {
	// ListTags lists the account's tags whose name contains q.Name (case
	// insensitive), with usage counts; ordered by last use (most recent
	// first) unless q.Sort says otherwise.
	ListTags(ctx context.Context, q TagQuery) (Page[TagDetail], error)
	// CreateTags creates the tags named by the titles (existing ones are
	// returned as they are) and returns them in input order, deduplicated.
	CreateTags(ctx context.Context, in TagCreateInput) ([]Tag, error)
	// SetTagsActive activates (active true) or deactivates the tags named by
	// ids and returns how many changed; 0 means nothing changed. Every id
	// must name a tag of the account; nothing is written otherwise.
	SetTagsActive(ctx context.Context, ids []string, active bool) (modified int, err error)
	// AddDashboardTag tags a dashboard; added is false when it already
	// carried the tag.
	AddDashboardTag(ctx context.Context, dashboardID, title string) (tag Tag, added bool, err error)
	// AddInsightTag tags an insight (an insightId placed on a dashboard).
	AddInsightTag(ctx context.Context, insightID, title string) (tag Tag, added bool, err error)
	// ListTaggings lists tag assignments (tag, item, item type, when), the
	// join GraphQL edges batch on (Tag.goals, Dashboard.tags, Goal.tags).
	ListTaggings(ctx context.Context, q ListQuery) (Page[Tagging], error)
}

// BadgeService serves badges, their assignment and the approval flow:
// an assignment starts pending and is approved or rejected once.
type BadgeService interface {
	ListBadges(ctx context.Context, q ListQuery) (Page[Badge], error)
	GetBadge(ctx context.Context, id string) (Badge, error)
	CreateBadge(ctx context.Context, in BadgeInput) (Badge, error)
	UpdateBadge(ctx context.Context, id string, in BadgePatch) (Badge, error)
	// DeleteBadge deletes a badge with all its assignments.
	DeleteBadge(ctx context.Context, id string) error
	// AssignBadge requests the assignment of a badge to users and/or teams;
	// the assignment is pending until approved.
	AssignBadge(ctx context.Context, in AssignBadgeInput) (AssignedBadge, error)
	// ListAssignedBadges lists assignments (approval-list form); filter on
	// status, badgeId, assigneeIds, assignedById.
	ListAssignedBadges(ctx context.Context, q ListQuery) (Page[AssignedBadge], error)
	// CurrentUserBadges lists the assignments naming the caller (directly or
	// through a team the caller is a member of) that are not rejected, in
	// the current-user form (embedded badge).
	CurrentUserBadges(ctx context.Context, q ListQuery) (Page[AssignedBadge], error)
	// BadgeAssignees returns the users and teams holding a badge (approved
	// assignments).
	BadgeAssignees(ctx context.Context, badgeID string) (BadgeAssignees, error)
	// DecideBadge approves (approve true) or rejects a pending assignment.
	// Deciding it the same way again is CodeNotModified; deciding an
	// approved one rejected (or the reverse) is CodeConflict.
	DecideBadge(ctx context.Context, assignmentID string, approve bool) (AssignedBadge, error)
}

// DashboardService serves dashboards (insight boards), their parameters,
// tags, usages and reports. Dashboards the caller may not read are left out
// of every listing.
type DashboardService interface {
	ListDashboards(ctx context.Context, q ListQuery) (Page[Dashboard], error)
	GetDashboard(ctx context.Context, id string) (Dashboard, error)
	CreateDashboard(ctx context.Context, in DashboardInput) (Dashboard, error)
	UpdateDashboard(ctx context.Context, id string, in DashboardPatch) (Dashboard, error)
	DeleteDashboard(ctx context.Context, id string) error
	// DashboardsByTag returns the dashboards carrying the tag named by tag (an
	// id, a name or a title).
	DashboardsByTag(ctx context.Context, tag string) ([]Dashboard, error)
	// DashboardTagUsages returns, per tag, the dashboards carrying it that the
	// caller may read; tags on no such dashboard are omitted.
	DashboardTagUsages(ctx context.Context) ([]DashboardTagUsage, error)
	// DashboardReports returns the report dashboards (isReport).
	DashboardReports(ctx context.Context) ([]ReportSummary, error)

	ListDashboardParameters(ctx context.Context, q ListQuery) (Page[DashboardParameter], error)
	GetDashboardParameter(ctx context.Context, id string) (DashboardParameter, error)
	CreateDashboardParameter(ctx context.Context, in DashboardParameterInput) (DashboardParameter, error)
	// ReplaceDashboardParameter replaces every field of a parameter (PUT).
	ReplaceDashboardParameter(ctx context.Context, id string, in DashboardParameterInput) (DashboardParameter, error)
	// DeleteDashboardParameter deletes a parameter and removes it from the
	// dashboards that use it.
	DeleteDashboardParameter(ctx context.Context, id string) error
}

// KPIService serves KPI groups, favourites and the KPIs groups hold.
type KPIService interface {
	// ListKPIGroups lists groups; favorite is set for the caller.
	ListKPIGroups(ctx context.Context, q ListQuery) (Page[KPIGroup], error)
	GetKPIGroup(ctx context.Context, id string) (KPIGroup, error)
	CreateKPIGroup(ctx context.Context, in KPIGroupInput) (KPIGroup, error)
	UpdateKPIGroup(ctx context.Context, id string, in KPIGroupInput) (KPIGroup, error)
	// DeleteKPIGroup deletes a group, its favourites and its memberships
	// (the KPIs stay).
	DeleteKPIGroup(ctx context.Context, id string) error
	// SetKPIGroupFavorite adds (or removes) the group to the caller's
	// favourites; idempotent.
	SetKPIGroupFavorite(ctx context.Context, groupID string, favorite bool) error
	// SetKPIInGroup adds (or removes) a KPI to a group; idempotent.
	SetKPIInGroup(ctx context.Context, kpiID, groupID string, member bool) error

	// ListKPIs lists KPIs; filter groupIds with $in for the KPIs of groups.
	ListKPIs(ctx context.Context, q ListQuery) (Page[KPI], error)
	GetKPI(ctx context.Context, id string) (KPI, error)
	CreateKPI(ctx context.Context, in KPIInput) (KPI, error)
	UpdateKPI(ctx context.Context, id string, in KPIPatch) (KPI, error)
	DeleteKPI(ctx context.Context, id string) error
}

// ListService serves saved lists: types, schemas, CRUD, clone and load.
type ListService interface {
	// ListTargetTypes returns the target types lists support.
	ListTargetTypes(ctx context.Context) ([]string, error)
	// ListTargetSchema describes the fields of a target type, from its field
	// registry.
	ListTargetSchema(ctx context.Context, targetType string) (ListSchema, error)
	ListLists(ctx context.Context, q ListQuery) (Page[List], error)
	GetList(ctx context.Context, id string) (List, error)
	CreateList(ctx context.Context, in ListInput) (List, error)
	// CloneList copies a list into a new one titled "<title> (copy)".
	CloneList(ctx context.Context, id string) (List, error)
	UpdateList(ctx context.Context, id string, in ListPatch) (List, error)
	DeleteList(ctx context.Context, id string) error
	// LoadList runs the list's filter, sort and fields — or those of in,
	// where given — against the listing of its target type.
	LoadList(ctx context.Context, id string, in ListLoadInput) (ListData, error)
}

// AnnouncementService serves the deprecated announcements.
type AnnouncementService interface {
	ListAnnouncements(ctx context.Context, q ListQuery) (Page[Announcement], error)
	GetAnnouncement(ctx context.Context, id string) (Announcement, error)
	CreateAnnouncement(ctx context.Context, in AnnouncementInput) (Announcement, error)
	UpdateAnnouncement(ctx context.Context, id string, in AnnouncementPatch) (Announcement, error)
	DeleteAnnouncement(ctx context.Context, id string) error
	// ReactToAnnouncement records the caller's reaction (idempotent per
	// user and reaction).
	ReactToAnnouncement(ctx context.Context, id, reactionID string) (Announcement, error)
}
