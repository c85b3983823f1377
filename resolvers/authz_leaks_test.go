package resolvers_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// totalCount is the totalCount of the only connection in body.
func totalCount(t *testing.T, body string) int {
	t.Helper()
	m := regexp.MustCompile(`"totalCount":(\d+)`).FindAllStringSubmatch(body, -1)
	if len(m) != 1 {
		t.Fatalf("not one totalCount: %s", body)
	}
	n, _ := strconv.Atoi(m[0][1])
	return n
}

// azSecrets are what the other account must never see of acct: every name
// and id of its items, its account, users and emails.
func (e *azEnv) azSecrets(f azItems) []string {
	out := append([]string{e.acct.AccountID, e.acct.UserID, e.member.UserID, e.viewer.UserID, "ann@acme.test", "Zanzibar"}, f.names...)
	return append(out, f.ids()...)
}

// leaks reports the secrets in body: a secret the request did not contain,
// or any secret as a JSON string value (an id the request named coming back
// as data, not only quoted in an error message).
func leaks(req, body string, secrets []string) []string {
	var out []string
	for _, s := range secrets {
		if strings.Contains(body, s) && !strings.Contains(req, s) || strings.Contains(body, `"`+s+`"`) {
			out = append(out, s)
		}
	}
	return out
}

// TestGraphQLNoCrossAccountLeaks: another account's admin tries to reach
// acct's data through GraphQL by id, by filter, by nested projection, by the
// edges of its own items (Team.members, User.goals, Tag.goals of a tag with
// the same title, ...) and by writes that point its items into acct; it sees
// none of acct's names or ids in any response.
func TestGraphQLNoCrossAccountLeaks(t *testing.T) {
	e := newAzEnv(t)
	f := e.items(e.acct, "Zanzibar") // acct's secrets
	own := e.items(e.other, "Globex")
	// Both accounts' goal and dashboard carry a tag titled "shared-tag" (each its own).
	secrets := e.azSecrets(f)
	// The test proves nothing unless acct's admin sees the secrets through the same queries.
	type probe struct {
		q    string
		vars map[string]any
		want string // ok (no error), null (data of every field null), or an error code
	}
	check := func(label string, p probe) {
		t.Helper()
		r := e.post(e.other.Token, p.q, p.vars)
		req := p.q + fmt.Sprint(p.vars)
		if l := leaks(req, r.body, secrets); len(l) > 0 {
			t.Errorf("%s: the other account sees %q\n  %s %v\n  %s", label, l, p.q, p.vars, r.body)
		}
		switch p.want {
		case azOK:
			if len(r.Errors) > 0 {
				t.Errorf("%s: %s", label, r.body)
			}
		case azNull:
			var d map[string]any
			if len(r.Errors) > 0 || json.Unmarshal(r.Data, &d) != nil {
				t.Errorf("%s: %s", label, r.body)
			}
			for k, v := range d {
				if v != nil {
					t.Errorf("%s: %s is %v, want null", label, k, v)
				}
			}
		case "write":
			if c := r.code(); c != azNotFound && c != azBadInput {
				t.Errorf("%s: %s, want NOT_FOUND or BAD_USER_INPUT\n  %s %v", label, r.body, p.q, p.vars)
			}
		default:
			if r.code() != p.want {
				t.Errorf("%s: %s, want %s", label, r.body, p.want)
			}
		}
	}
	v := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}

	// By id: null for the nullable reads, NOT_FOUND for the others.
	for _, c := range []struct{ field, id, sel string }{
		{"goal", f.goal, "id name metrics { name } tasks { name } children { name } owners { __typename }"},
		{"metric", f.metric, "id name goal { name } checkins { comment }"},
		{"task", f.task, "id name parent { __typename }"},
		{"session", f.session, "id title goals { name }"},
		{"team", f.team, "id name members { email }"},
		{"user", f.user, "id email"},
		{"user", e.acct.UserID, "id email goals { name }"},
		{"employee", f.user, "id email"},
		{"role", f.role, "id name"},
		{"permission", f.grant, "id principals"},
		{"dashboard", f.dashboard, "id name"},
		{"badge", f.badge, "id name"},
		{"kpiGroup", f.kpiGroup, "id name kpis { name }"},
		{"kpi", f.kpi, "id name"},
		{"list", f.list, "id title"},
		{"announcement", f.announcement, "id comment"},
		{"loadList", f.list, "list { id title createdBy { email } } items totalCount"},
	} {
		q := `query($id: ID!) { ` + c.field + `(id: $id) { ` + c.sel + ` } }`
		check("by id: "+c.field, probe{q, v("id", c.id), azNull})
		// The same read as acct's admin finds the item.
		if r := e.post(e.acct.Token, q, v("id", c.id)); len(r.Errors) > 0 || !strings.Contains(r.body, c.id) {
			t.Errorf("by id: acct's admin does not read its %s: %s", c.field, r.body)
		}
	}
	for _, c := range []struct{ q, id string }{
		{`query($id: ID!) { allowedActions(targetType: "goal", id: $id) }`, f.goal},
		{`query($id: ID!) { allowedActions(targetType: "metric", id: $id) }`, f.metric},
		{`query($id: ID!) { allowedActions(targetType: "session", id: $id) }`, f.session},
		{`query($id: ID!) { allowedActions(targetType: "insightBoard", id: $id) }`, f.dashboard},
		{`query($id: ID!) { itemAccess(itemType: "session", id: $id) { inherits } }`, f.session},
		{`query($id: ID!) { itemAccess(itemType: "goal", id: $id) { inherits } }`, f.goal},
		{`query($id: ID!) { principalPermissions(principalId: $id) { actions } }`, f.role},
		{`query($id: ID!) { principalPermissions(principalId: $id) { actions } }`, e.acct.UserID},
	} {
		check("by id", probe{c.q, v("id", c.id), azNotFound})
		if r := e.post(e.acct.Token, c.q, v("id", c.id)); len(r.Errors) > 0 {
			t.Errorf("by id: acct's admin: %s", r.body)
		}
	}

	// By filter (IDs inlined: some filter fields are IDFilter, some
	// StringFilter): acct's ids, account id and names never match.
	for _, c := range []struct{ q string }{
		{`{ legacyUsers(filter: "roles:ID") { totalCount items { email } } }`},
		{`{ goals(filter: {id: {eq: "ID"}}) { totalCount nodes { id name } } }`},
		{`{ metrics(filter: {goalId: {eq: "ID"}}) { totalCount nodes { id name goalName } } }`},
		{`{ tasks(filter: {parentId: {eq: "ID"}}) { totalCount nodes { id name parentName } } }`},
		{`{ checkins(filter: {goalId: {eq: "ID"}}) { totalCount nodes { id comment } } }`},
		{`{ goals(filter: {or: [{parentId: {eq: "ID"}}, {sessionId: {eq: "ID"}}, {ownerIds: {eq: "ID"}}]}) { totalCount nodes { name } } }`},
		{`{ metrics(filter: {or: [{ownerIds: {eq: "ID"}}, {sessionId: {eq: "ID"}}, {id: {eq: "ID"}}]}) { totalCount nodes { name } } }`},
		{`{ sessions(filter: {id: {eq: "ID"}}, includeDemo: true) { totalCount nodes { title } } }`},
		{`{ teams(filter: {id: {eq: "ID"}}) { totalCount nodes { name members { email } } } }`},
		{`{ users(filter: {or: [{id: {eq: "ID"}}, {teamIds: {eq: "ID"}}, {accountId: {eq: "ID"}}]}) { totalCount nodes { email } } }`},
		{`{ employees(filter: {or: [{id: {eq: "ID"}}, {teamIds: {eq: "ID"}}]}) { totalCount nodes { email } } }`},
		{`{ roles(filter: {id: {eq: "ID"}}) { totalCount nodes { name } } }`},
		{`{ dashboards(filter: {id: {eq: "ID"}}) { totalCount nodes { name } } }`},
		{`{ dashboardParameters(filter: {id: {eq: "ID"}}) { totalCount nodes { title } } }`},
		{`{ badges(filter: {id: {eq: "ID"}}) { totalCount nodes { name } } }`},
		{`{ badgeApprovals(filter: {or: [{badgeId: {eq: "ID"}}, {assigneeIds: {eq: "ID"}}]}) { totalCount nodes { badge { name } } } }`},
		{`{ kpiGroups(filter: {id: {eq: "ID"}}) { totalCount nodes { name } } }`},
		{`{ kpis(filter: {or: [{id: {eq: "ID"}}, {groupIds: {eq: "ID"}}, {ownerId: {eq: "ID"}}]}) { totalCount nodes { name } } }`},
		{`{ lists(filter: {id: {eq: "ID"}}) { totalCount nodes { title } } }`},
		{`{ announcements(filter: {or: [{id: {eq: "ID"}}, {authorId: {eq: "ID"}}]}) { totalCount nodes { comment } } }`},
		{`{ tags(filter: {id: {eq: "ID"}}) { totalCount nodes { name goals { name } } } }`},
	} {
		matched := 0
		for _, id := range []string{f.goal, f.metric, f.session, f.team, f.user, f.role, f.dashboard, f.parameter, f.badge,
			f.kpiGroup, f.kpi, f.list, f.announcement, f.activeTag, e.acct.UserID, e.acct.AccountID} {
			q := strings.ReplaceAll(strings.ReplaceAll(c.q, `"ID"`, `"`+id+`"`), "roles:ID", "roles:"+id)
			check("by filter", probe{q, nil, azOK})
			if n := totalCount(t, e.post(e.other.Token, q, nil).body); n != 0 {
				t.Errorf("by filter: %d of acct's items match for the other account: %s", n, q)
			}
			matched += totalCount(t, e.post(e.acct.Token, q, nil).body)
		}
		// The probe is worth something: for acct's admin, some id matches.
		if matched == 0 {
			t.Errorf("by filter: the probe matches nothing even for acct's admin: %s", c.q)
		}
	}
	for _, q := range []string{
		`{ goals(filter: {name: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
		`{ metrics(filter: {goalName: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
		`{ tasks(filter: {parentName: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
		`{ users(filter: {email: {regex: "acme"}}) { totalCount nodes { email } } }`,
		`{ legacyUsers(filter: "email:acme name:zanzibar") { totalCount items { email } } }`,
		`{ dashboardsByTag(tag: "zanzibar") { name } }`,
		`{ teams(filter: {name: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
		`{ sessions(filter: {title: {regex: "(?i)zanzibar"}}) { totalCount nodes { title } } }`,
		`{ tags(name: "zanzibar") { totalCount nodes { name goals { name } dashboards { name } } } }`,
		`{ dashboards(filter: {name: {regex: "(?i)zanzibar"}}) { totalCount nodes { name } } }`,
	} {
		check("by filter", probe{q, nil, azOK})
	}

	// By nested projection and by the edges of the other account's own items.
	for _, q := range []string{
		`{ viewer { email goals { name } teams { name members { email } } roles(includeTeamRoles: true) { name team { name } } badges { badge { name } } employee { teams { name } managedTeams { name } } } }`,
		`{ account { name owner { email } } effectivePermissions { userId roles actions } }`,
		`{ goals(first: 100) { totalCount nodes { name parent { name } children { name } session { title } owners { __typename ... on User { email } ... on Team { name } } createdBy { email } tags { name goals { name } dashboards { name } } metrics { name goal { name } checkins { comment } owners { __typename } } tasks { name parent { __typename ... on Goal { name } ... on Metric { name } } owner { __typename } } } } }`,
		`{ metrics(first: 100) { nodes { name goal { name } tasks { name } } } checkins(first: 100) { nodes { comment } } tasks(first: 100) { nodes { name parentName parent { __typename ... on Goal { name } } } } }`,
		`{ sessions(first: 100, includeDemo: true) { nodes { title parent { title } children { title } tags { name goals { name } } goals { name } roots: goals(roots: true) { name children { name } } } } }`,
		`{ users(first: 100) { nodes { email teams { name } goals { name } roles(includeTeamRoles: true) { name team { name } } badges { badge { name } assignees { __typename } } employee { teams { name } } } } }`,
		`{ teams(first: 100) { nodes { name parent { name } children { name } members { email } manager { email } badges { badge { name } } roles { role { name } team { name } } } } }`,
		`{ employees(first: 100) { nodes { email user { email } teams { name } managedTeams { name } badges { badge { name } } } } }`,
		`{ roles(first: 100) { nodes { name } } roleMappings { role { name } team { name members { email } } } }`,
		`{ tags(first: 100) { nodes { name title goals { name } dashboards { name } } } }`,
		`{ tags(name: "shared-tag") { totalCount nodes { title goalsTaggedCount dashboardsTaggedCount itemsTaggedCount goals { name tags { name goals { name } } } dashboards { name } } } }`,
		`{ dashboards(first: 100) { nodes { name parameters { title } tags { name goals { name } dashboards { name } } } } dashboardParameters(first: 100) { nodes { title } } }`,
		`{ badges(first: 100) { nodes { name } } badgeApprovals(first: 100) { nodes { badge { name } assignees { __typename ... on User { email } } assignedBy { email } } } myBadges { nodes { badge { name } } } }`,
		`{ kpiGroups(first: 100) { nodes { name createdBy { email } kpis { name owner { email } groups { name } } } } kpis(first: 100) { nodes { name owner { email } groups { name } } } }`,
		`{ lists(first: 100) { nodes { title createdBy { email } } } announcements(first: 100) { nodes { comment author { email } } } }`,
		`{ dashboardsByTag(tag: "shared-tag") { name tags { name goals { name } dashboards { name } } } dashboardTagUsages { tagName dashboardsIds } dashboardReports { id name } }`,
		`{ legacyUsers(filter: "email:globex", take: 1000, includeShadowedRoles: true) { totalCount items { email teams { name } roles(includeTeamRoles: true) { name team { name } } } } }`,
	} {
		check("projection", probe{q, nil, azOK})
		// The other account does see its own items there.
		if r := e.post(e.other.Token, q, nil); !strings.Contains(strings.ToLower(r.body), "globex") {
			t.Errorf("projection: the other account sees nothing of its own: %s\n  %s", q, r.body)
		}
	}

	// A badge's holders: null for the other account; acct's admin sees the
	// user holding it once the assignment is approved (after the filter
	// probes, which count the pending assignment).
	hq := `query($id: ID!) { badgeHolders(id: $id) { users { id email } teams { id name } } badges(first: 100) { nodes { holders { users { email } teams { name } } } } }`
	check("by id: badgeHolders", probe{`query($id: ID!) { badgeHolders(id: $id) { users { id email } teams { id name } } }`, v("id", f.badge), azNull})
	if _, err := e.store.DecideBadge(ctxOf(e.acct), f.assignment, true); err != nil {
		t.Fatal(err)
	}
	check("badge holders", probe{hq, v("id", f.badge), azOK})
	if r := e.post(e.acct.Token, hq, v("id", f.badge)); len(r.Errors) > 0 || strings.Count(r.body, f.user) != 1 {
		t.Errorf("badgeHolders: acct's admin does not see the holder: %s", r.body)
	}
	// By writes that point the other account's items into acct: "no such ..."
	// or not found, and nothing written that a later read could follow.
	writes := []probe{
		{`mutation($s: ID!, $p: ID!) { createGoal(input: {name: "x", sessionId: $s, parentId: $p}) { id } }`, v("s", own.session, "p", f.goal), "write"},
		{`mutation($s: ID!) { createGoal(input: {name: "x", sessionId: $s}) { id } }`, v("s", f.session), "write"},
		{`mutation($s: ID!, $u: ID!) { createGoal(input: {name: "x", sessionId: $s, ownerIds: [$u]}) { id owners { __typename } } }`, v("s", own.session, "u", e.acct.UserID), "write"},
		{`mutation($g: ID!, $p: String!) { updateGoal(id: $g, input: {parentId: $p}) { id } }`, v("g", own.goal, "p", f.goal), "write"},
		{`mutation($g: ID!, $s: ID!) { updateGoal(id: $g, input: {sessionId: $s}) { id } }`, v("g", own.goal, "s", f.session), "write"},
		{`mutation($g: ID!, $u: ID!) { updateGoal(id: $g, input: {ownerIds: [$u]}) { id } }`, v("g", own.goal, "u", e.acct.UserID), "write"},
		{`mutation($g: ID!) { createMetric(input: {name: "x", goalId: $g, target: 1}) { id } }`, v("g", f.goal), "write"},
		{`mutation($g: ID!, $u: ID!) { createMetric(input: {name: "x", goalId: $g, target: 1, ownerIds: [$u]}) { id } }`, v("g", own.goal, "u", e.acct.UserID), "write"},
		{`mutation($m: ID!, $g: ID!) { updateMetric(id: $m, input: {goalId: $g}) { id } }`, v("m", own.metric, "g", f.goal), "write"},
		{`mutation($p: ID!) { createTask(input: {name: "x", parentId: $p}) { id } }`, v("p", f.metric), "write"},
		{`mutation($p: ID!, $u: ID!) { createTask(input: {name: "x", parentId: $p, ownerId: $u}) { id } }`, v("p", own.goal, "u", e.acct.UserID), "write"},
		{`mutation($t: ID!, $p: String!) { updateTask(id: $t, input: {parentId: $p}) { id } }`, v("t", own.task, "p", f.goal), "write"},
		{`mutation($t: ID!, $u: ID!) { updateTask(id: $t, input: {ownerId: $u}) { id } }`, v("t", own.task, "u", e.acct.UserID), "write"},
		{`mutation($m: ID!) { checkIn(metricId: $m, input: {actual: 1}) { checkIn { id } } }`, v("m", f.metric), "write"},
		{`mutation($p: ID!) { createSession(input: {title: "x", start: "2026-01-01", end: "2026-02-01", parentId: $p}) { id } }`, v("p", f.session), "write"},
		{`mutation($u: ID!) { createTeam(input: {name: "x", members: [$u]}) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($u: ID!) { createTeam(input: {name: "x", manager: $u}) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($p: ID!) { createTeam(input: {name: "x", parentId: $p}) { id } }`, v("p", f.team), "write"},
		{`mutation($t: ID!, $u: ID!) { updateTeam(id: $t, input: {members: [$u]}) { id } }`, v("t", own.team, "u", e.acct.UserID), "write"},
		{`mutation($t: ID!, $p: String!) { updateTeam(id: $t, input: {parentId: $p}) { id } }`, v("t", own.team, "p", f.team), "write"},
		{`mutation($t: ID!, $u: ID!) { addTeamMember(teamId: $t, userId: $u) { id } }`, v("t", own.team, "u", e.acct.UserID), "write"},
		{`mutation($t: ID!, $u: ID!) { addTeamMember(teamId: $t, userId: $u) { id } }`, v("t", f.team, "u", own.user), "write"},
		{`mutation($r: ID!) { createUser(input: {email: "x@globex.test", roleIds: [$r]}) { id } }`, v("r", f.role), "write"},
		{`mutation($u: ID!, $r: ID!) { updateUser(id: $u, input: {roleIds: [$r]}) { id } }`, v("u", own.user, "r", f.role), "write"},
		{`mutation($u: ID!) { createUserToken(id: $u) { token } }`, v("u", e.acct.UserID), "write"},
		{`mutation($u: ID!) { createToken(input: {userId: $u}) { token } }`, v("u", e.acct.UserID), "write"},
		{`mutation($r: ID!, $t: ID!) { createRoleMapping(roleId: $r, teamId: $t) { id } }`, v("r", own.role2, "t", f.team), "write"},
		{`mutation($r: ID!, $t: ID!) { createRoleMapping(roleId: $r, teamId: $t) { id } }`, v("r", f.role2, "t", own.team), "write"},
		{`mutation($u: ID!) { createPermission(action: "goals:read", principals: [$u]) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($u: ID!) { setPrincipalPermissions(principalId: $u, actions: ["goals:read"]) { actions } }`, v("u", e.acct.UserID), "write"},
		{`mutation($s: ID!) { setItemAccess(itemType: "session", id: $s, access: {inherits: true}) { inherits } }`, v("s", f.session), "write"},
		// Item access entries must name principals of the caller's account.
		{`mutation($s: ID!, $u: ID!) { setItemAccess(itemType: "session", id: $s, access: {inherits: true, permissions: [{principalId: $u, principalKind: "user", grant: ["goals:read"]}]}) { inherits } }`, v("s", own.session, "u", e.acct.UserID), "write"},
		{`mutation($a: JSON) { createDashboard(input: {name: "x", access: $a}) { id } }`, v("a", map[string]any{"inherits": false, "permissions": []any{map[string]any{"principalId": e.acct.UserID, "principalKind": "user", "grant": map[string]int{"dashboards:read": 1}}}}), "write"},
		{`mutation($ids: [ID!]!) { setTagsActive(ids: $ids, active: false) }`, v("ids", []string{f.activeTag}), "write"},
		{`mutation($d: ID!) { tagDashboard(dashboardId: $d, title: "x") { added } }`, v("d", f.dashboard), "write"},
		{`mutation($i: ID!) { tagInsight(insightId: $i, title: "x") { added } }`, v("i", f.insight), "write"},
		{`mutation($g: ID!) { tagGoal(goalId: $g, title: "shared-tag") { added } }`, v("g", f.goal), "write"},
		{`mutation($p: ID!) { createDashboard(input: {name: "x", parameterIds: [$p]}) { id } }`, v("p", f.parameter), "write"},
		{`mutation($d: ID!, $p: ID!) { updateDashboard(id: $d, input: {parameterIds: [$p]}) { id } }`, v("d", own.dashboard, "p", f.parameter), "write"},
		{`mutation($b: ID!, $u: ID!) { assignBadge(input: {badgeId: $b, assigneeIds: [$u]}) { id } }`, v("b", f.badge, "u", own.user), "write"},
		{`mutation($b: ID!, $u: ID!) { assignBadge(input: {badgeId: $b, assigneeIds: [$u]}) { id } }`, v("b", own.badge, "u", e.acct.UserID), "write"},
		{`mutation($a: ID!) { decideBadge(id: $a, approve: true) { id } }`, v("a", f.assignment), "write"},
		{`mutation($g: ID!) { createKpi(input: {name: "x", groupIds: [$g]}) { id } }`, v("g", f.kpiGroup), "write"},
		{`mutation($u: ID!) { createKpi(input: {name: "x", ownerId: $u}) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($k: ID!, $u: ID!) { updateKpi(id: $k, input: {ownerId: $u}) { id } }`, v("k", own.kpi, "u", e.acct.UserID), "write"},
		{`mutation($k: ID!, $g: ID!) { setKpiInGroup(kpiId: $k, groupId: $g, member: true) { id } }`, v("k", own.kpi, "g", f.kpiGroup), "write"},
		{`mutation($k: ID!, $g: ID!) { setKpiInGroup(kpiId: $k, groupId: $g, member: true) { id } }`, v("k", f.kpi, "g", own.kpiGroup), "write"},
		{`mutation($g: ID!) { setKpiGroupFavorite(groupId: $g, favorite: true) { id } }`, v("g", f.kpiGroup), "write"},
		{`mutation($u: ID!) { createAnnouncement(input: {comment: "x", authorId: $u}) { id } }`, v("u", e.acct.UserID), "write"},
		{`mutation($a: ID!) { reactToAnnouncement(id: $a, reactionId: "like") { id } }`, v("a", f.announcement), "write"},
		{`mutation($l: ID!) { cloneList(id: $l) { id } }`, v("l", f.list), "write"},
	}
	for _, p := range writes {
		check("write", p)
	}
	// After the writes, the other account's items and edges still show nothing of acct.
	for _, q := range []string{
		`{ goals(first: 100) { nodes { name ownerIds parentId sessionId owners { __typename ... on User { email } } parent { name } metrics { name ownerIds goalId } tasks { name ownerId parentId owner { __typename } } } } }`,
		`{ teams(first: 100) { nodes { name parentId managerId memberIds members { email } manager { email } parent { name } roles { roleId role { name } } } } }`,
		`{ kpis(first: 100) { nodes { name ownerId owner { email } groupIds groups { name } } } announcements(first: 100) { nodes { authorId author { email } } } }`,
		`{ dashboards(first: 100) { nodes { name parameters { title } } } badgeApprovals(first: 100) { nodes { assigneeIds assignees { __typename } } } }`,
		`{ users(first: 100) { nodes { email roles { id name } } } roleMappings { roleId teamId } }`,
	} {
		check("after the writes", probe{q, nil, azOK})
	}
	// And acct's admin, through the very same queries, does see its secrets.
	r := e.post(e.acct.Token, `{ goals(filter: {name: {regex: "(?i)zanzibar"}}) { nodes { name } } tags(name: "shared-tag") { nodes { goals { name } } } }`, nil)
	if !strings.Contains(r.body, "Zanzibar goal") || strings.Count(r.body, "Zanzibar goal") != 2 {
		t.Errorf("acct's admin does not see its own goal through the probes: %s", r.body)
	}
}
