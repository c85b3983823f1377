package resolvers

// Counted methods of the organisation and content services (api_org.go,
// api_content.go), in the style of instrument.go.

import (
	"context"

	"github.com/okrgate/okrgate/upstream"
)

func (i *instrumented) ListUsersLegacy(ctx context.Context, q upstream.LegacyUserQuery) (upstream.Page[upstream.User], error) {
	i.c.inc("ListUsersLegacy")
	return i.API.ListUsersLegacy(ctx, q)
}

func (i *instrumented) CreateUser(ctx context.Context, in upstream.UserInput) (upstream.User, error) {
	i.c.inc("CreateUser")
	return i.API.CreateUser(ctx, in)
}

func (i *instrumented) UpdateUser(ctx context.Context, id string, in upstream.UserPatch) (upstream.User, error) {
	i.c.inc("UpdateUser")
	return i.API.UpdateUser(ctx, id, in)
}

func (i *instrumented) CreateUserToken(ctx context.Context, id string) (upstream.UserToken, error) {
	i.c.inc("CreateUserToken")
	return i.API.CreateUserToken(ctx, id)
}

func (i *instrumented) CreateTeam(ctx context.Context, in upstream.TeamInput) (upstream.Team, error) {
	i.c.inc("CreateTeam")
	return i.API.CreateTeam(ctx, in)
}

func (i *instrumented) UpdateTeam(ctx context.Context, id string, in upstream.TeamPatch) (upstream.Team, error) {
	i.c.inc("UpdateTeam")
	return i.API.UpdateTeam(ctx, id, in)
}

func (i *instrumented) DeleteTeam(ctx context.Context, id string) error {
	i.c.inc("DeleteTeam")
	return i.API.DeleteTeam(ctx, id)
}

func (i *instrumented) AddTeamMember(ctx context.Context, teamID, userID string) (upstream.Team, error) {
	i.c.inc("AddTeamMember")
	return i.API.AddTeamMember(ctx, teamID, userID)
}

func (i *instrumented) RemoveTeamMember(ctx context.Context, teamID, userID string) error {
	i.c.inc("RemoveTeamMember")
	return i.API.RemoveTeamMember(ctx, teamID, userID)
}

func (i *instrumented) GetAccount(ctx context.Context, id string) (upstream.Account, error) {
	i.c.inc("GetAccount")
	return i.API.GetAccount(ctx, id)
}

func (i *instrumented) UpdateAccount(ctx context.Context, id string, in upstream.AccountPatch) (upstream.Account, error) {
	i.c.inc("UpdateAccount")
	return i.API.UpdateAccount(ctx, id, in)
}

func (i *instrumented) CheckAccountDomain(ctx context.Context, in upstream.DomainCheck) (upstream.DomainAvailability, error) {
	i.c.inc("CheckAccountDomain")
	return i.API.CheckAccountDomain(ctx, in)
}

func (i *instrumented) SetConfidenceSettings(ctx context.Context, id string, in upstream.ConfidenceSettings) error {
	i.c.inc("SetConfidenceSettings")
	return i.API.SetConfidenceSettings(ctx, id, in)
}

func (i *instrumented) SetNotificationSettings(ctx context.Context, id string, in upstream.NotificationSettings) (upstream.NotificationSettings, error) {
	i.c.inc("SetNotificationSettings")
	return i.API.SetNotificationSettings(ctx, id, in)
}

func (i *instrumented) ListEmployees(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Employee], error) {
	i.c.inc("ListEmployees")
	return i.API.ListEmployees(ctx, q)
}

func (i *instrumented) GetEmployee(ctx context.Context, id string) (upstream.Employee, error) {
	i.c.inc("GetEmployee")
	return i.API.GetEmployee(ctx, id)
}

func (i *instrumented) ListRoles(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Role], error) {
	i.c.inc("ListRoles")
	return i.API.ListRoles(ctx, q)
}

func (i *instrumented) GetRole(ctx context.Context, id string) (upstream.Role, error) {
	i.c.inc("GetRole")
	return i.API.GetRole(ctx, id)
}

func (i *instrumented) CreateRole(ctx context.Context, in upstream.RoleInput) (upstream.Role, error) {
	i.c.inc("CreateRole")
	return i.API.CreateRole(ctx, in)
}

func (i *instrumented) UpdateRole(ctx context.Context, id string, in upstream.RolePatch) (upstream.Role, error) {
	i.c.inc("UpdateRole")
	return i.API.UpdateRole(ctx, id, in)
}

func (i *instrumented) DeleteRole(ctx context.Context, id string) error {
	i.c.inc("DeleteRole")
	return i.API.DeleteRole(ctx, id)
}

func (i *instrumented) ListRoleMappings(ctx context.Context) ([]upstream.Role, error) {
	i.c.inc("ListRoleMappings")
	return i.API.ListRoleMappings(ctx)
}

func (i *instrumented) CreateRoleMapping(ctx context.Context, in upstream.RoleMappingInput) (upstream.Role, error) {
	i.c.inc("CreateRoleMapping")
	return i.API.CreateRoleMapping(ctx, in)
}

func (i *instrumented) DeleteRoleMapping(ctx context.Context, id string) error {
	i.c.inc("DeleteRoleMapping")
	return i.API.DeleteRoleMapping(ctx, id)
}

func (i *instrumented) ListActions(ctx context.Context) ([]upstream.ActionDescriptor, error) {
	i.c.inc("ListActions")
	return i.API.ListActions(ctx)
}

func (i *instrumented) AllowedActions(ctx context.Context, targetType, targetID string) (upstream.AllowedActions, error) {
	i.c.inc("AllowedActions")
	return i.API.AllowedActions(ctx, targetType, targetID)
}

func (i *instrumented) DefaultAccess(ctx context.Context, itemType string) (upstream.Access, error) {
	i.c.inc("DefaultAccess")
	return i.API.DefaultAccess(ctx, itemType)
}

func (i *instrumented) ItemAccess(ctx context.Context, itemType, itemID string) (upstream.Access, error) {
	i.c.inc("ItemAccess")
	return i.API.ItemAccess(ctx, itemType, itemID)
}

func (i *instrumented) SetItemAccess(ctx context.Context, itemType, itemID string, in upstream.Access) (upstream.Access, error) {
	i.c.inc("SetItemAccess")
	return i.API.SetItemAccess(ctx, itemType, itemID, in)
}

func (i *instrumented) EffectivePermissions(ctx context.Context) (upstream.EffectivePermissions, error) {
	i.c.inc("EffectivePermissions")
	return i.API.EffectivePermissions(ctx)
}

func (i *instrumented) GetPrincipalPermissions(ctx context.Context, principalID string) (upstream.PrincipalPermissions, error) {
	i.c.inc("GetPrincipalPermissions")
	return i.API.GetPrincipalPermissions(ctx, principalID)
}

func (i *instrumented) SetPrincipalPermissions(ctx context.Context, principalID string, in upstream.PrincipalPermissionsInput) error {
	i.c.inc("SetPrincipalPermissions")
	return i.API.SetPrincipalPermissions(ctx, principalID, in)
}

func (i *instrumented) GetPermission(ctx context.Context, id string) (upstream.Permission, error) {
	i.c.inc("GetPermission")
	return i.API.GetPermission(ctx, id)
}

func (i *instrumented) CreatePermission(ctx context.Context, in upstream.PermissionInput) (upstream.Permission, error) {
	i.c.inc("CreatePermission")
	return i.API.CreatePermission(ctx, in)
}

func (i *instrumented) ListTags(ctx context.Context, q upstream.TagQuery) (upstream.Page[upstream.TagDetail], error) {
	i.c.inc("ListTags")
	return i.API.ListTags(ctx, q)
}

func (i *instrumented) CreateTags(ctx context.Context, in upstream.TagCreateInput) ([]upstream.Tag, error) {
	i.c.inc("CreateTags")
	return i.API.CreateTags(ctx, in)
}

func (i *instrumented) SetTagsActive(ctx context.Context, ids []string, active bool) (int, error) {
	i.c.inc("SetTagsActive")
	return i.API.SetTagsActive(ctx, ids, active)
}

func (i *instrumented) AddDashboardTag(ctx context.Context, dashboardID, title string) (upstream.Tag, bool, error) {
	i.c.inc("AddDashboardTag")
	return i.API.AddDashboardTag(ctx, dashboardID, title)
}

func (i *instrumented) AddInsightTag(ctx context.Context, insightID, title string) (upstream.Tag, bool, error) {
	i.c.inc("AddInsightTag")
	return i.API.AddInsightTag(ctx, insightID, title)
}

func (i *instrumented) ListTaggings(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Tagging], error) {
	i.c.inc("ListTaggings")
	return i.API.ListTaggings(ctx, q)
}

func (i *instrumented) ListBadges(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Badge], error) {
	i.c.inc("ListBadges")
	return i.API.ListBadges(ctx, q)
}

func (i *instrumented) GetBadge(ctx context.Context, id string) (upstream.Badge, error) {
	i.c.inc("GetBadge")
	return i.API.GetBadge(ctx, id)
}

func (i *instrumented) CreateBadge(ctx context.Context, in upstream.BadgeInput) (upstream.Badge, error) {
	i.c.inc("CreateBadge")
	return i.API.CreateBadge(ctx, in)
}

func (i *instrumented) UpdateBadge(ctx context.Context, id string, in upstream.BadgePatch) (upstream.Badge, error) {
	i.c.inc("UpdateBadge")
	return i.API.UpdateBadge(ctx, id, in)
}

func (i *instrumented) DeleteBadge(ctx context.Context, id string) error {
	i.c.inc("DeleteBadge")
	return i.API.DeleteBadge(ctx, id)
}

func (i *instrumented) AssignBadge(ctx context.Context, in upstream.AssignBadgeInput) (upstream.AssignedBadge, error) {
	i.c.inc("AssignBadge")
	return i.API.AssignBadge(ctx, in)
}

func (i *instrumented) ListAssignedBadges(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.AssignedBadge], error) {
	i.c.inc("ListAssignedBadges")
	return i.API.ListAssignedBadges(ctx, q)
}

func (i *instrumented) CurrentUserBadges(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.AssignedBadge], error) {
	i.c.inc("CurrentUserBadges")
	return i.API.CurrentUserBadges(ctx, q)
}

func (i *instrumented) BadgeAssignees(ctx context.Context, badgeID string) (upstream.BadgeAssignees, error) {
	i.c.inc("BadgeAssignees")
	return i.API.BadgeAssignees(ctx, badgeID)
}

func (i *instrumented) DecideBadge(ctx context.Context, assignmentID string, approve bool) (upstream.AssignedBadge, error) {
	i.c.inc("DecideBadge")
	return i.API.DecideBadge(ctx, assignmentID, approve)
}

func (i *instrumented) ListDashboards(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Dashboard], error) {
	i.c.inc("ListDashboards")
	return i.API.ListDashboards(ctx, q)
}

func (i *instrumented) GetDashboard(ctx context.Context, id string) (upstream.Dashboard, error) {
	i.c.inc("GetDashboard")
	return i.API.GetDashboard(ctx, id)
}

func (i *instrumented) CreateDashboard(ctx context.Context, in upstream.DashboardInput) (upstream.Dashboard, error) {
	i.c.inc("CreateDashboard")
	return i.API.CreateDashboard(ctx, in)
}

func (i *instrumented) UpdateDashboard(ctx context.Context, id string, in upstream.DashboardPatch) (upstream.Dashboard, error) {
	i.c.inc("UpdateDashboard")
	return i.API.UpdateDashboard(ctx, id, in)
}

func (i *instrumented) DeleteDashboard(ctx context.Context, id string) error {
	i.c.inc("DeleteDashboard")
	return i.API.DeleteDashboard(ctx, id)
}

func (i *instrumented) DashboardsByTag(ctx context.Context, tag string) ([]upstream.Dashboard, error) {
	i.c.inc("DashboardsByTag")
	return i.API.DashboardsByTag(ctx, tag)
}

func (i *instrumented) DashboardTagUsages(ctx context.Context) ([]upstream.DashboardTagUsage, error) {
	i.c.inc("DashboardTagUsages")
	return i.API.DashboardTagUsages(ctx)
}

func (i *instrumented) DashboardReports(ctx context.Context) ([]upstream.ReportSummary, error) {
	i.c.inc("DashboardReports")
	return i.API.DashboardReports(ctx)
}

func (i *instrumented) ListDashboardParameters(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.DashboardParameter], error) {
	i.c.inc("ListDashboardParameters")
	return i.API.ListDashboardParameters(ctx, q)
}

func (i *instrumented) GetDashboardParameter(ctx context.Context, id string) (upstream.DashboardParameter, error) {
	i.c.inc("GetDashboardParameter")
	return i.API.GetDashboardParameter(ctx, id)
}

func (i *instrumented) CreateDashboardParameter(ctx context.Context, in upstream.DashboardParameterInput) (upstream.DashboardParameter, error) {
	i.c.inc("CreateDashboardParameter")
	return i.API.CreateDashboardParameter(ctx, in)
}

func (i *instrumented) ReplaceDashboardParameter(ctx context.Context, id string, in upstream.DashboardParameterInput) (upstream.DashboardParameter, error) {
	i.c.inc("ReplaceDashboardParameter")
	return i.API.ReplaceDashboardParameter(ctx, id, in)
}

func (i *instrumented) DeleteDashboardParameter(ctx context.Context, id string) error {
	i.c.inc("DeleteDashboardParameter")
	return i.API.DeleteDashboardParameter(ctx, id)
}

func (i *instrumented) ListKPIGroups(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.KPIGroup], error) {
	i.c.inc("ListKPIGroups")
	return i.API.ListKPIGroups(ctx, q)
}

func (i *instrumented) GetKPIGroup(ctx context.Context, id string) (upstream.KPIGroup, error) {
	i.c.inc("GetKPIGroup")
	return i.API.GetKPIGroup(ctx, id)
}

func (i *instrumented) CreateKPIGroup(ctx context.Context, in upstream.KPIGroupInput) (upstream.KPIGroup, error) {
	i.c.inc("CreateKPIGroup")
	return i.API.CreateKPIGroup(ctx, in)
}

func (i *instrumented) UpdateKPIGroup(ctx context.Context, id string, in upstream.KPIGroupInput) (upstream.KPIGroup, error) {
	i.c.inc("UpdateKPIGroup")
	return i.API.UpdateKPIGroup(ctx, id, in)
}

func (i *instrumented) DeleteKPIGroup(ctx context.Context, id string) error {
	i.c.inc("DeleteKPIGroup")
	return i.API.DeleteKPIGroup(ctx, id)
}

func (i *instrumented) SetKPIGroupFavorite(ctx context.Context, groupID string, favorite bool) error {
	i.c.inc("SetKPIGroupFavorite")
	return i.API.SetKPIGroupFavorite(ctx, groupID, favorite)
}

func (i *instrumented) SetKPIInGroup(ctx context.Context, kpiID, groupID string, member bool) error {
	i.c.inc("SetKPIInGroup")
	return i.API.SetKPIInGroup(ctx, kpiID, groupID, member)
}

func (i *instrumented) ListKPIs(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.KPI], error) {
	i.c.inc("ListKPIs")
	return i.API.ListKPIs(ctx, q)
}

func (i *instrumented) GetKPI(ctx context.Context, id string) (upstream.KPI, error) {
	i.c.inc("GetKPI")
	return i.API.GetKPI(ctx, id)
}

func (i *instrumented) CreateKPI(ctx context.Context, in upstream.KPIInput) (upstream.KPI, error) {
	i.c.inc("CreateKPI")
	return i.API.CreateKPI(ctx, in)
}

func (i *instrumented) UpdateKPI(ctx context.Context, id string, in upstream.KPIPatch) (upstream.KPI, error) {
	i.c.inc("UpdateKPI")
	return i.API.UpdateKPI(ctx, id, in)
}

func (i *instrumented) DeleteKPI(ctx context.Context, id string) error {
	i.c.inc("DeleteKPI")
	return i.API.DeleteKPI(ctx, id)
}

func (i *instrumented) ListTargetTypes(ctx context.Context) ([]string, error) {
	i.c.inc("ListTargetTypes")
	return i.API.ListTargetTypes(ctx)
}

func (i *instrumented) ListTargetSchema(ctx context.Context, targetType string) (upstream.ListSchema, error) {
	i.c.inc("ListTargetSchema")
	return i.API.ListTargetSchema(ctx, targetType)
}

func (i *instrumented) ListLists(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.List], error) {
	i.c.inc("ListLists")
	return i.API.ListLists(ctx, q)
}

func (i *instrumented) GetList(ctx context.Context, id string) (upstream.List, error) {
	i.c.inc("GetList")
	return i.API.GetList(ctx, id)
}

func (i *instrumented) CreateList(ctx context.Context, in upstream.ListInput) (upstream.List, error) {
	i.c.inc("CreateList")
	return i.API.CreateList(ctx, in)
}

func (i *instrumented) CloneList(ctx context.Context, id string) (upstream.List, error) {
	i.c.inc("CloneList")
	return i.API.CloneList(ctx, id)
}

func (i *instrumented) UpdateList(ctx context.Context, id string, in upstream.ListPatch) (upstream.List, error) {
	i.c.inc("UpdateList")
	return i.API.UpdateList(ctx, id, in)
}

func (i *instrumented) DeleteList(ctx context.Context, id string) error {
	i.c.inc("DeleteList")
	return i.API.DeleteList(ctx, id)
}

func (i *instrumented) LoadList(ctx context.Context, id string, in upstream.ListLoadInput) (upstream.ListData, error) {
	i.c.inc("LoadList")
	return i.API.LoadList(ctx, id, in)
}

func (i *instrumented) ListAnnouncements(ctx context.Context, q upstream.ListQuery) (upstream.Page[upstream.Announcement], error) {
	i.c.inc("ListAnnouncements")
	return i.API.ListAnnouncements(ctx, q)
}

func (i *instrumented) GetAnnouncement(ctx context.Context, id string) (upstream.Announcement, error) {
	i.c.inc("GetAnnouncement")
	return i.API.GetAnnouncement(ctx, id)
}

func (i *instrumented) CreateAnnouncement(ctx context.Context, in upstream.AnnouncementInput) (upstream.Announcement, error) {
	i.c.inc("CreateAnnouncement")
	return i.API.CreateAnnouncement(ctx, in)
}

func (i *instrumented) UpdateAnnouncement(ctx context.Context, id string, in upstream.AnnouncementPatch) (upstream.Announcement, error) {
	i.c.inc("UpdateAnnouncement")
	return i.API.UpdateAnnouncement(ctx, id, in)
}

func (i *instrumented) DeleteAnnouncement(ctx context.Context, id string) error {
	i.c.inc("DeleteAnnouncement")
	return i.API.DeleteAnnouncement(ctx, id)
}

func (i *instrumented) ReactToAnnouncement(ctx context.Context, id, reactionID string) (upstream.Announcement, error) {
	i.c.inc("ReactToAnnouncement")
	return i.API.ReactToAnnouncement(ctx, id, reactionID)
}
