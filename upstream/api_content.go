package upstream

// TagService serves the tag listing, creation and activation.
type TagService interface{}

// BadgeService serves badges, their assignment and the approval flow.
type BadgeService interface{}

// DashboardService serves dashboards (insight boards), their parameters,
// tags, usages and reports.
type DashboardService interface{}

// KPIService serves KPI groups, favourites and the KPIs groups hold.
type KPIService interface{}

// ListService serves saved lists: types, schemas, CRUD, clone and load.
type ListService interface{}

// AnnouncementService serves the deprecated announcements.
type AnnouncementService interface{}
