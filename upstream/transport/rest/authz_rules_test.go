package rest_test

// expect is the status each caller gets.
type expect struct{ admin, member, viewer, other int }

var (
	readAll   = expect{200, 200, 200, 200} // listings and catalogue reads: everyone, each its own account
	readByID  = expect{200, 200, 200, 404} // reads by id: another account's ids are not found
	adminOnly = func(ok int) expect { return expect{ok, 403, 403, 404} }
	// creates in one's own account: the other account's admin may create there too.
	createAdmin = func(ok int) expect { return expect{ok, 403, 403, ok} }
)

// authzRules: the expected status of every route, for the admin, a member
// (not an owner of the fixture's items), a viewer and the other account's
// admin. A route of rest.Routes() missing here fails TestAuthzMatrix.
var authzRules = map[string]expect{
	"GET /api/v2/integrations/goals": readAll,
	// The v1 listings (legacy.go): the v2 listings' rules.
	"GET /api/v1/goals":    readAll,
	"GET /api/v1/metrics":  readAll,
	"GET /api/v1/tasks":    readAll,
	"GET /api/v1/sessions": readAll,
	// The gateway's listings (gateway.go): readable by everyone, scoped.
	"GET /api/v2/users/me":                          readAll,
	"GET /api/v2/checkins":                          readAll,
	"GET /api/v2/checkins/snapshots":                readAll,
	"GET /api/v2/integrations/taggings":             readAll,
	"GET /api/v2/badges/assignments":                readAll,
	"GET /api/v2/dashboards/parameters":             readAll,
	"GET /api/v2/announcements":                     readAll,
	"GET /api/v2/permissions":                       {200, 403, 403, 200}, // grants: permissions:manage, each its own account
	"GET /api/v2/events":                            readAll,              // each its own account, as it may see it (TestEventFeedAsTheCallerSeesIt)
	"GET /api/v2/integrations/goals/groupBy/owners": readAll,
	"POST /api/v2/integrations/goals/{id}/tags":     adminOnly(201),
	"POST /api/v1/goals":                            {201, 201, 403, 400}, // other: no such session
	"GET /api/v1/goals/{id}":                        readByID,
	"PATCH /api/v1/goals/{id}":                      adminOnly(200),
	"DELETE /api/v1/goals/{id}":                     adminOnly(204),
	"GET /api/v2/metrics":                           readAll,
	"GET /api/v1/metrics/checkin/{checkinId}":       readByID,
	"GET /api/v1/metrics/owner/{ownerId}":           readAll,
	"POST /api/v1/metrics":                          {201, 201, 403, 400}, // other: no such goal
	"GET /api/v1/metrics/{id}":                      readByID,
	"PATCH /api/v1/metrics/{id}":                    adminOnly(200),
	"DELETE /api/v1/metrics/{id}":                   adminOnly(204),
	"POST /api/v1/metrics/{id}/checkin":             adminOnly(201),
	"GET /api/v1/metrics/{id}/checkins":             readByID,
	// Comments (comments.go): shown as their key result is; members comment, the author or an admin deletes.
	"GET /api/v1/comments":                                          readAll,
	"POST /api/v1/comments":                                         {201, 201, 403, 404}, // other: no such key result
	"DELETE /api/v1/comments/{id}":                                  adminOnly(204),
	"GET /api/v2/integrations/tasks":                                readAll,
	"GET /api/v2/integrations/tasks/{taskId}":                       readByID,
	"POST /api/v2/integrations/tasks":                               {201, 201, 403, 400}, // other: no such parent
	"PATCH /api/v2/integrations/tasks/{taskId}":                     adminOnly(200),
	"DELETE /api/v2/integrations/tasks/{taskId}":                    adminOnly(204),
	"GET /api/v2/sessions":                                          readAll,
	"GET /api/v1/sessions/{id}/stats/goalsMet":                      readByID,
	"POST /api/v1/sessions":                                         createAdmin(201),
	"GET /api/v1/sessions/{id}":                                     readByID,
	"PATCH /api/v1/sessions/{id}":                                   adminOnly(200),
	"DELETE /api/v1/sessions/{id}":                                  adminOnly(204),
	"GET /api/v1/accounts/{id}":                                     readByID,
	"PUT /api/v1/accounts/{id}":                                     adminOnly(200),
	"POST /api/v1/accounts/domain":                                  createAdmin(200),
	"PUT /api/v1/accounts/{id}/confidence":                          adminOnly(204),
	"PUT /api/v1/accounts/{id}/notifications":                       adminOnly(200),
	"GET /api/v1/accounts/users":                                    readAll,
	"GET /api/v2/goals":                                             readAll,
	"GET /api/v2/tasks":                                             readAll,
	"GET /api/v1/users":                                             readAll,
	"GET /api/v1/users/{id}":                                        readByID,
	"POST /api/v1/users":                                            createAdmin(201),
	"PATCH /api/v1/users/{id}":                                      adminOnly(200),
	"POST /api/v1/tasks":                                            {201, 201, 403, 400}, // other: no such parent
	"GET /api/v1/tasks/{taskId}":                                    readByID,
	"PATCH /api/v1/tasks/{taskId}":                                  adminOnly(200),
	"PUT /api/v1/tasks/{taskId}":                                    adminOnly(200),
	"DELETE /api/v1/tasks/{taskId}":                                 adminOnly(204),
	"GET /api/v1/metrics/{id}/values":                               readByID,
	"GET /api/v2/users":                                             readAll,
	"GET /api/v2/users/{id}":                                        readByID,
	"POST /api/v2/users":                                            createAdmin(201),
	"PATCH /api/v2/users/{id}":                                      adminOnly(200),
	"POST /api/v2/users/{id}/tokens":                                adminOnly(201),
	"GET /api/v2/users/me/tokens":                                   readAll,
	"GET /api/v1/webhooks":                                          {200, 403, 403, 200}, // admins, each its own account
	"POST /api/v1/webhooks":                                         createAdmin(201),
	"GET /api/v1/webhooks/{id}":                                     adminOnly(200),
	"PATCH /api/v1/webhooks/{id}":                                   adminOnly(200),
	"DELETE /api/v1/webhooks/{id}":                                  adminOnly(204),
	"GET /api/v1/webhooks/{id}/deliveries":                          adminOnly(200),
	"POST /api/v2/users/me/tokens":                                  {201, 201, 201, 201},
	"DELETE /api/v2/users/me/tokens/{tokenId}":                      {204, 404, 404, 404}, // the admin's token: only its owner revokes it
	"GET /api/v2/employees":                                         readAll,
	"GET /api/v1/employees/{employeeId}":                            readByID,
	"GET /api/v2/teams":                                             readAll,
	"GET /api/v1/teams/{teamId}":                                    readByID,
	"POST /api/v1/teams":                                            createAdmin(201),
	"PATCH /api/v1/teams/{teamId}":                                  adminOnly(200),
	"DELETE /api/v1/teams/{teamId}":                                 adminOnly(204),
	"PUT /api/v1/teams/{teamId}/members/{userId}":                   adminOnly(200),
	"DELETE /api/v1/teams/{teamId}/members/{userId}":                adminOnly(204),
	"GET /api/v2/roles":                                             readAll,
	"GET /api/v1/roles/account/mapping/":                            readAll,
	"GET /api/v1/roles/{id}":                                        readByID,
	"POST /api/v1/roles/account":                                    createAdmin(201),
	"POST /api/v1/roles/account/mapping":                            {201, 403, 403, 400}, // other: no such role
	"PUT /api/v1/roles/account/{id}":                                adminOnly(200),
	"DELETE /api/v1/roles/account/mapping/{id}":                     adminOnly(204),
	"DELETE /api/v1/roles/account/{id}":                             adminOnly(204),
	"GET /api/v1/permissions/actions":                               readAll,
	"GET /api/v1/permissions/currentUser-allowedActions/{targetId}": readByID,
	"GET /api/v1/permissions/default-access/{itemType}":             readAll,
	"GET /api/v1/permissions/default-access/{itemType}/{itemId}":    readByID,
	"PUT /api/v1/permissions/default-access/{itemType}/{itemId}":    adminOnly(200),
	"GET /api/v1/permissions/effective":                             readAll,
	"GET /api/v1/permissions/principal/{id}":                        adminOnly(200),
	"PUT /api/v1/permissions/principal/{id}":                        adminOnly(204),
	"GET /api/v1/permissions/{id}":                                  adminOnly(200),
	"POST /api/v1/permissions":                                      {201, 403, 403, 400}, // other: no such principal

	// The rest of the contract: reads for everyone in the account; tags,
	// badges, parameters, KPIs, lists and announcements are managed by
	// admins; dashboards are edited by their owners and admins; a member may
	// propose a badge (the assignment waits for approval).
	"GET /api/v1/announcements":                          readAll,
	"GET /api/v1/announcements/{id}":                     readByID,
	"POST /api/v1/announcements":                         createAdmin(201),
	"POST /api/v1/announcements/{id}/react":              {200, 200, 200, 404},
	"PATCH /api/v1/announcements/{id}":                   adminOnly(200),
	"DELETE /api/v1/announcements/{id}":                  adminOnly(204),
	"GET /api/v1/kpis/groups":                            readAll,
	"GET /api/v1/kpis/groups/{groupId}":                  readByID,
	"POST /api/v1/kpis/groups":                           createAdmin(201),
	"PATCH /api/v1/kpis/groups/{groupId}":                adminOnly(200),
	"DELETE /api/v1/kpis/groups/{groupId}":               adminOnly(204),
	"PUT /api/v1/kpis/groups/{groupId}/favorite":         {204, 204, 204, 404},
	"DELETE /api/v1/kpis/groups/{groupId}/favorite":      {204, 204, 204, 404},
	"PUT /api/v1/kpis/{kpiId}/groups/{groupId}":          adminOnly(204),
	"DELETE /api/v1/kpis/{kpiId}/groups/{groupId}":       adminOnly(204),
	"GET /api/v1/kpis":                                   readAll,
	"POST /api/v1/kpis":                                  createAdmin(201),
	"GET /api/v1/kpis/{kpiId}":                           readByID,
	"PATCH /api/v1/kpis/{kpiId}":                         adminOnly(200),
	"DELETE /api/v1/kpis/{kpiId}":                        adminOnly(204),
	"GET /api/v1/lists":                                  readAll,
	"GET /api/v1/lists/supported-types":                  readAll,
	"GET /api/v1/lists/{listId}":                         readByID,
	"GET /api/v1/lists/{targetType}/schema":              readAll,
	"POST /api/v1/lists":                                 createAdmin(201),
	"POST /api/v1/lists/{id}/clone":                      adminOnly(201),
	"POST /api/v1/lists/{id}/load":                       readByID,
	"PATCH /api/v1/lists/{id}":                           adminOnly(200),
	"DELETE /api/v1/lists/{id}":                          adminOnly(204),
	"GET /api/v2/integrations/tags":                      readAll,
	"POST /api/v1/dashboards/{dashboardId}/tags":         adminOnly(200),
	"POST /api/v2/integrations/insights/{id}/tags":       adminOnly(201),
	"POST /api/v1/tags":                                  createAdmin(200),
	"POST /api/v1/tags/activate":                         {200, 403, 403, 400}, // other: no such tag
	"POST /api/v1/tags/deactivate":                       {200, 403, 403, 400},
	"GET /api/v1/dashboards/parameters":                  readAll,
	"GET /api/v1/dashboards/parameters/{parameterId}":    readByID,
	"POST /api/v1/dashboards/parameters":                 createAdmin(201),
	"PUT /api/v1/dashboards/parameters/{parameterId}":    adminOnly(200),
	"DELETE /api/v1/dashboards/parameters/{parameterId}": adminOnly(204),
	"GET /api/v2/dashboards":                             readAll,
	"GET /api/v1/dashboards/reports":                     readAll,
	"GET /api/v1/dashboards/tag/{tag}":                   readAll, // a listing: another account sees []
	"GET /api/v1/dashboards/tags/usages":                 readAll,
	"GET /api/v1/dashboards/{dashboardId}":               readByID,
	"POST /api/v1/dashboards":                            createAdmin(201), // members edit only what they own
	"PATCH /api/v1/dashboards/{dashboardId}":             adminOnly(200),
	"DELETE /api/v1/dashboards/{dashboardId}":            adminOnly(204),
	"GET /api/v1/badges":                                 readAll,
	"GET /api/v1/badges/approve":                         readAll,
	"GET /api/v1/badges/assign":                          readAll,
	"GET /api/v1/badges/assign/{id}":                     readByID,
	"GET /api/v1/badges/current":                         readAll,
	"GET /api/v1/badges/{id}":                            readByID,
	"POST /api/v1/badges":                                createAdmin(201),
	"POST /api/v1/badges/approve/{id}":                   adminOnly(200),
	"POST /api/v1/badges/assign":                         {200, 200, 403, 400}, // other: no such badge
	"PATCH /api/v1/badges/{id}":                          adminOnly(204),
	"DELETE /api/v1/badges/approve/{id}":                 adminOnly(204),
	"DELETE /api/v1/badges/{id}":                         adminOnly(204),

	// Another user's picture (avatars.go): users:manage; one's own is TestAvatarWho's.
	"POST /api/v1/fileserver/avatar/{userId}":   adminOnly(200),
	"DELETE /api/v1/fileserver/avatar/{userId}": adminOnly(204),
}
