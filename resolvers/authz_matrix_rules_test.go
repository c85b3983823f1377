package resolvers_test

import (
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/upstream"
)

// Outcomes of a root field for one caller.
const (
	azOK   = "ok"   // no error, the field's data is not null
	azNull = "null" // no error, the field is null: a nullable by-id read of an id the caller cannot see
)

// Outcomes that are GraphQL codes of the error table.
var (
	azForbidden   = resolvers.CodeForbidden
	azNotFound    = resolvers.CodeNotFound
	azBadInput    = resolvers.CodeBadUserInput
	azNotModified = resolvers.CodeNotModified
)

// azRule is the expected outcome of a root field for the account's admin, a
// member (owning none of the fixture's items), a viewer and the other
// account's admin, and the argument values for a fresh fixture.
type azRule struct {
	admin, member, viewer, other string
	args                         func(e *azEnv, f azItems) map[string]any
}

type azArgs = map[string]any

func none(*azEnv, azItems) map[string]any { return nil }

var (
	// listings and catalogue reads: everyone, each in its own account.
	azReadAll = azRule{azOK, azOK, azOK, azOK, none}
	// nullable reads by id: another account's id is null.
	azReadByID = func(args func(*azEnv, azItems) map[string]any) azRule {
		return azRule{azOK, azOK, azOK, azNull, args}
	}
	// changes of an existing item: admins; another account's id is not found.
	azAdminOnly = func(args func(*azEnv, azItems) map[string]any) azRule {
		return azRule{azOK, azForbidden, azForbidden, azNotFound, args}
	}
	// creates (and account operations) in the caller's own account: admins,
	// and the other account's admin in its own account.
	azCreateAdmin = func(args func(*azEnv, azItems) map[string]any) azRule {
		return azRule{azOK, azForbidden, azForbidden, azOK, args}
	}
	// writes that name an item of this account in their input: the other
	// account's admin gets "no such ..." (BAD_USER_INPUT).
	azCreateRef = func(member string, args func(*azEnv, azItems) map[string]any) azRule {
		return azRule{azOK, member, azForbidden, azBadInput, args}
	}
	byID = func(pick func(azItems) string) func(*azEnv, azItems) map[string]any {
		return func(_ *azEnv, f azItems) map[string]any { return azArgs{"id": pick(f)} }
	}
	idAnd = func(pick func(azItems) string, kv ...any) func(*azEnv, azItems) map[string]any {
		return func(e *azEnv, f azItems) map[string]any {
			m := azArgs{"id": pick(f)}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
	}
	fixed = func(kv ...any) func(*azEnv, azItems) map[string]any {
		return func(*azEnv, azItems) map[string]any {
			m := azArgs{}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
	}
	fGoal      = func(f azItems) string { return f.goal }
	fMetric    = func(f azItems) string { return f.metric }
	fTask      = func(f azItems) string { return f.task }
	fSession   = func(f azItems) string { return f.session }
	fTeam      = func(f azItems) string { return f.team }
	fUser      = func(f azItems) string { return f.user }
	fRole      = func(f azItems) string { return f.role }
	fMapping   = func(f azItems) string { return f.mapping }
	fGrant     = func(f azItems) string { return f.grant }
	fDashboard = func(f azItems) string { return f.dashboard }
	fParameter = func(f azItems) string { return f.parameter }
	fBadge     = func(f azItems) string { return f.badge }
	fAssigned  = func(f azItems) string { return f.assignment }
	fKpiGroup  = func(f azItems) string { return f.kpiGroup }
	fKpi       = func(f azItems) string { return f.kpi }
	fList      = func(f azItems) string { return f.list }
	fAnnounce  = func(f azItems) string { return f.announcement }
	fComment   = func(f azItems) string { return f.comment }
)

// gqlRules: every root field of the schema ("Query.x" / "Mutation.x"). A
// field of graph.NewExecutableSchema(...).Schema() missing here fails
// TestGraphQLAuthzMatrix.
var gqlRules = map[string]azRule{
	// Reads: the caller's own records.
	"Query.viewer":  azReadAll,
	"Query.account": azReadAll, // the caller's account, whichever it is

	// Goals, key results, tasks, sessions, teams, users.
	"Query.goal":    azReadByID(byID(fGoal)),
	"Query.metric":  azReadByID(byID(fMetric)),
	"Query.task":    azReadByID(byID(fTask)),
	"Query.session": azReadByID(byID(fSession)),
	"Query.team":    azReadByID(byID(fTeam)),
	"Query.user":    azReadByID(byID(fUser)),
	"Query.node":    azReadByID(byID(fGoal)),
	// Another account's id is a null element of the list.
	"Query.nodes":     {azOK, azOK, azOK, azOK, func(_ *azEnv, f azItems) map[string]any { return azArgs{"ids": []string{fGoal(f)}} }},
	"Query.goals":     azReadAll,
	"Query.metrics":   azReadAll,
	"Query.checkins":  azReadAll,
	"Query.tasks":     azReadAll,
	"Query.sessions":  azReadAll,
	"Query.teams":     azReadAll,
	"Query.users":     azReadAll,
	"Query.employees": azReadAll,
	"Query.employee":  azReadByID(byID(fUser)),
	"Query.roles":     azReadAll,
	"Query.role":      azReadByID(byID(fRole)),

	"Query.roleMappings": azReadAll,
	// A grant: permissions:manage (admins); another account's is null.
	"Query.permission":           {azOK, azForbidden, azForbidden, azNull, byID(fGrant)},
	"Query.actions":              azReadAll,
	"Query.allowedActions":       {azOK, azOK, azOK, azNotFound, idAnd(fGoal, "targetType", "goal")},
	"Query.defaultAccess":        {azOK, azOK, azOK, azOK, fixed("itemType", "session")},
	"Query.itemAccess":           {azOK, azOK, azOK, azNotFound, idAnd(fSession, "itemType", "session")},
	"Query.effectivePermissions": azReadAll,
	// Another principal's permissions: permissions:manage.
	"Query.principalPermissions": {azOK, azForbidden, azForbidden, azNotFound, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"principalId": f.role}
	}},

	// Content.
	"Query.tags":                {azOK, azOK, azOK, azOK, fixed("name", "")},
	"Query.dashboards":          azReadAll,
	"Query.dashboard":           azReadByID(byID(fDashboard)),
	"Query.dashboardParameters": azReadAll,
	"Query.badges":              azReadAll,
	"Query.badge":               azReadByID(byID(fBadge)),
	"Query.badgeApprovals":      azReadAll,
	"Query.myBadges":            azReadAll,
	"Query.kpiGroups":           azReadAll,
	"Query.kpiGroup":            azReadByID(byID(fKpiGroup)),
	"Query.kpis":                azReadAll,
	"Query.kpi":                 azReadByID(byID(fKpi)),
	"Query.lists":               azReadAll,
	"Query.list":                azReadByID(byID(fList)),
	"Query.listTypes":           azReadAll,
	"Query.listSchema":          {azOK, azOK, azOK, azOK, fixed("type", "goal")},
	"Query.announcements":       azReadAll,
	"Query.announcement":        azReadByID(byID(fAnnounce)),
	// The rest of the dashboard, badge and list reads (REST: readAll /
	// readByID). Another account's tag matches none of its dashboards ([]);
	// another account's list or badge is null.
	"Query.loadList":           azReadByID(byID(fList)),
	"Query.dashboardsByTag":    {azOK, azOK, azOK, azOK, fixed("tag", "shared-tag")},
	"Query.dashboardTagUsages": azReadAll,
	"Query.dashboardReports":   azReadAll,
	"Query.badgeHolders":       azReadByID(byID(fBadge)),
	// The deprecated user listing (REST GET /api/v1/accounts/users: readAll).
	"Query.legacyUsers": azReadAll,

	// OKR writes. Members create goals, key results and tasks (in open
	// sessions) and change what they own — none of the fixture's items.
	"Mutation.createGoal": azCreateRef(azOK, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "N", "sessionId": f.session}}
	}),
	"Mutation.updateGoal": azAdminOnly(idAnd(fGoal, "input", azArgs{"name": "N2"})),
	"Mutation.deleteGoal": azAdminOnly(byID(fGoal)),
	"Mutation.tagGoal": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"goalId": f.goal, "title": "t" + e.uniq()}
	}),
	"Mutation.createMetric": azCreateRef(azOK, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "N", "goalId": f.goal, "target": 5}}
	}),
	"Mutation.updateMetric": azAdminOnly(idAnd(fMetric, "input", azArgs{"name": "N2"})),
	"Mutation.deleteMetric": azAdminOnly(byID(fMetric)),
	"Mutation.checkIn": azAdminOnly(func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"metricId": f.metric, "input": azArgs{"actual": 7}}
	}),
	"Mutation.createTask": azCreateRef(azOK, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "N", "parentId": f.goal}}
	}),
	"Mutation.updateTask":    azAdminOnly(idAnd(fTask, "input", azArgs{"name": "N2"})),
	"Mutation.deleteTask":    azAdminOnly(byID(fTask)),
	"Mutation.createSession": azCreateAdmin(fixed("input", azArgs{"title": "N", "start": "2026-01-01", "end": "2026-02-01"})),
	"Mutation.updateSession": azAdminOnly(idAnd(fSession, "input", azArgs{"title": "N2"})),
	"Mutation.deleteSession": azAdminOnly(byID(func(f azItems) string { return f.emptySession })),

	// The organisation. The account mutations act on the caller's account:
	// the other account's admin changes its own.
	"Mutation.updateAccount":    azCreateAdmin(fixed("input", azArgs{"accountName": "Renamed"})),
	"Mutation.setConfidence":    azCreateAdmin(fixed("input", azArgs{"confidenceType": "numeric", "confidenceMapping": []any{}})),
	"Mutation.setNotifications": azCreateAdmin(fixed("input", azArgs{"cadence": "weekly"})),
	"Mutation.checkDomain": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"accountName": "Free " + e.uniq(), "domain": "free-" + e.uniq()}
	}),
	"Mutation.createUser": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"email": "new" + e.uniq() + "@x.test"}}
	}),
	"Mutation.updateUser":      azAdminOnly(idAnd(fUser, "input", azArgs{"firstName": "X"})),
	"Mutation.createUserToken": azAdminOnly(byID(fUser)),
	"Mutation.createTeam":      azCreateAdmin(fixed("input", azArgs{"name": "N"})),
	"Mutation.updateTeam":      azAdminOnly(idAnd(fTeam, "input", azArgs{"name": "N2"})),
	"Mutation.deleteTeam":      azAdminOnly(byID(fTeam)),
	"Mutation.addTeamMember": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"teamId": f.team, "userId": e.member.UserID}
	}),
	"Mutation.removeTeamMember": azAdminOnly(func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"teamId": f.team, "userId": f.user}
	}),
	"Mutation.createRole": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "R" + e.uniq()}}
	}),
	"Mutation.updateRole": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"id": f.role, "input": azArgs{"name": "R" + e.uniq()}}
	}),
	"Mutation.deleteRole": azAdminOnly(byID(fRole)),
	"Mutation.createRoleMapping": azCreateRef(azForbidden, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"roleId": f.role2, "teamId": f.team}
	}),
	"Mutation.deleteRoleMapping": azAdminOnly(byID(fMapping)),
	"Mutation.createPermission": azCreateRef(azForbidden, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"action": "goals:read", "principals": []string{f.role}}
	}),
	"Mutation.setPrincipalPermissions": azAdminOnly(func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"principalId": f.role, "actions": []string{"goals:read"}}
	}),
	"Mutation.setItemAccess": azAdminOnly(idAnd(fSession, "itemType", "session", "access", azArgs{"inherits": true, "permissions": []any{}})),

	// API tokens: everyone lists and creates their own; only the owner
	// revokes one (here the admin's: not found for anyone else).
	"Query.myTokens":       azReadAll,
	"Mutation.createToken": azReadAll,
	"Mutation.revokeToken": {azOK, azNotFound, azNotFound, azNotFound, func(e *azEnv, _ azItems) map[string]any {
		t, err := e.store.IssueToken(ctxOf(e.acct), "", upstream.TokenInput{Name: "matrix"})
		if err != nil {
			e.t.Fatal(err)
		}
		return azArgs{"id": t.ID}
	}},

	// Content: tags, badges, parameters, KPIs, lists and announcements are
	// managed by admins; dashboards are edited by their owners and admins; a
	// member may propose a badge; reacting and favouriting are personal.
	"Mutation.createTags": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"titles": []string{"t" + e.uniq()}}
	}),
	"Mutation.setTagsActive": azCreateRef(azForbidden, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"ids": []string{f.inactive}, "active": true}
	}),
	"Mutation.tagDashboard": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"dashboardId": f.dashboard, "title": "t" + e.uniq()}
	}),
	"Mutation.tagInsight": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"insightId": f.insight, "title": "t" + e.uniq()}
	}),
	"Mutation.createDashboard": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "D" + e.uniq()}}
	}),
	"Mutation.updateDashboard": azAdminOnly(idAnd(fDashboard, "input", azArgs{"name": "D2"})),
	"Mutation.deleteDashboard": azAdminOnly(byID(fDashboard)),
	"Mutation.createDashboardParameter": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"key": "k" + e.uniq(), "title": "K", "selectorType": "single"}}
	}),
	"Mutation.replaceDashboardParameter": azAdminOnly(func(e *azEnv, f azItems) map[string]any {
		return azArgs{"id": f.parameter, "input": azArgs{"key": "k" + e.uniq(), "title": "K2", "selectorType": "text"}}
	}),
	"Mutation.deleteDashboardParameter": azAdminOnly(byID(fParameter)),
	"Mutation.createBadge": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "B" + e.uniq()}}
	}),
	"Mutation.updateBadge": azAdminOnly(idAnd(fBadge, "input", azArgs{"name": "B2"})),
	"Mutation.deleteBadge": azAdminOnly(byID(fBadge)),
	"Mutation.assignBadge": azCreateRef(azOK, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"input": azArgs{"badgeId": f.badge, "assigneeIds": []string{f.user}}}
	}),
	"Mutation.decideBadge": azAdminOnly(idAnd(fAssigned, "approve", true)),
	"Mutation.createKpiGroup": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"name": "G" + e.uniq()}
	}),
	"Mutation.renameKpiGroup": azAdminOnly(idAnd(fKpiGroup, "name", "G2")),
	"Mutation.deleteKpiGroup": azAdminOnly(byID(fKpiGroup)),
	"Mutation.setKpiGroupFavorite": {azOK, azOK, azOK, azNotFound, func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"groupId": f.kpiGroup, "favorite": true}
	}},
	"Mutation.setKpiInGroup": azAdminOnly(func(_ *azEnv, f azItems) map[string]any {
		return azArgs{"kpiId": f.kpi, "groupId": f.kpiGroup, "member": false}
	}),
	"Mutation.createKpi": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"name": "K" + e.uniq()}}
	}),
	"Mutation.updateKpi": azAdminOnly(idAnd(fKpi, "input", azArgs{"name": "K2"})),
	"Mutation.deleteKpi": azAdminOnly(byID(fKpi)),
	"Mutation.createList": azCreateAdmin(func(e *azEnv, _ azItems) map[string]any {
		return azArgs{"input": azArgs{"title": "L" + e.uniq(), "listType": "goal"}}
	}),
	"Mutation.updateList":          azAdminOnly(idAnd(fList, "input", azArgs{"title": "L2"})),
	"Mutation.deleteList":          azAdminOnly(byID(fList)),
	"Mutation.cloneList":           azAdminOnly(byID(fList)),
	"Mutation.createAnnouncement":  azCreateAdmin(fixed("input", azArgs{"comment": "hi", "announcementType": "general"})),
	"Mutation.updateAnnouncement":  azAdminOnly(idAnd(fAnnounce, "comment", "edited")),
	"Mutation.deleteAnnouncement":  azAdminOnly(byID(fAnnounce)),
	"Mutation.reactToAnnouncement": {azOK, azOK, azOK, azNotFound, idAnd(fAnnounce, "reactionId", "like")},
	// Comments: shown as their key result is; members comment (the other
	// account's key result is not found), the author or an admin deletes.
	"Query.comments": azReadAll,
	"Mutation.createComment": {azOK, azOK, azForbidden, azNotFound, func(e *azEnv, f azItems) map[string]any {
		return azArgs{"input": azArgs{"targetId": f.metric, "text": "C" + e.uniq()}}
	}},
	"Mutation.deleteComment": azAdminOnly(byID(fComment)),
}

// gqlAgain: fields whose admin call, repeated with the same arguments on
// the same items, gives a different outcome: the same badge decision again
// is NOT_MODIFIED, a deleted item is then not found, a tag already active
// changes nothing (0, not an error).
var gqlAgain = map[string]string{
	"Mutation.decideBadge":   azNotModified,
	"Mutation.deleteGoal":    azNotFound,
	"Mutation.deleteMetric":  azNotFound,
	"Mutation.deleteTask":    azNotFound,
	"Mutation.deleteSession": azNotFound,
	"Mutation.deleteTeam":    azNotFound,
	"Mutation.deleteBadge":   azNotFound,
	"Mutation.deleteComment": azNotFound,
	"Mutation.setTagsActive": azOK,
}

// rootFields lists the root fields of Query and Mutation of the executable
// schema, without the introspection fields (__schema, __type).
func rootFields(s *ast.Schema) []*ast.FieldDefinition {
	var out []*ast.FieldDefinition
	for _, def := range []*ast.Definition{s.Query, s.Mutation} {
		if def == nil {
			continue
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}
