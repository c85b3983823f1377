package resolvers

import (
	"reflect"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/graph/model"
	"github.com/okrgate/okrgate/upstream"
)

// connectionOf builds a connection of type C over two items of type T at
// offset 1 of 5 and returns it with the items.
func connectionOf[C, T any]() (any, []T) {
	items := make([]T, 2)
	return newConnection[C](Page{First: 2, Offset: 1}, items, 5), items
}

// TestNewConnectionEveryType builds every connection type of the schema
// with the one generic constructor (newConnection, reflection over the
// shape the schema gives them all): the totals, page info, nodes and edges
// are set, each edge's node is its item. A connection type the schema adds
// fails the count until it is listed here.
func TestNewConnectionEveryType(t *testing.T) {
	type built struct {
		conn  any
		items any
	}
	mk := func(c any, items any) built { return built{c, items} }
	all := map[string]built{
		"AnnouncementConnection":       mk(connectionOf[model.AnnouncementConnection, upstream.Announcement]()),
		"AssignedBadgeConnection":      mk(connectionOf[model.AssignedBadgeConnection, upstream.AssignedBadge]()),
		"BadgeConnection":              mk(connectionOf[model.BadgeConnection, upstream.Badge]()),
		"CheckInConnection":            mk(connectionOf[model.CheckInConnection, upstream.CheckIn]()),
		"CommentConnection":            mk(connectionOf[model.CommentConnection, upstream.Comment]()),
		"DashboardConnection":          mk(connectionOf[model.DashboardConnection, upstream.Dashboard]()),
		"DashboardParameterConnection": mk(connectionOf[model.DashboardParameterConnection, upstream.DashboardParameter]()),
		"EmployeeConnection":           mk(connectionOf[model.EmployeeConnection, upstream.Employee]()),
		"GoalConnection":               mk(connectionOf[model.GoalConnection, upstream.Goal]()),
		"KpiConnection":                mk(connectionOf[model.KpiConnection, upstream.KPI]()),
		"KpiGroupConnection":           mk(connectionOf[model.KpiGroupConnection, upstream.KPIGroup]()),
		"ListConnection":               mk(connectionOf[model.ListConnection, upstream.List]()),
		"MetricConnection":             mk(connectionOf[model.MetricConnection, upstream.Metric]()),
		"RoleConnection":               mk(connectionOf[model.RoleConnection, upstream.Role]()),
		"SessionConnection":            mk(connectionOf[model.SessionConnection, upstream.Session]()),
		"TagDetailConnection":          mk(connectionOf[model.TagDetailConnection, upstream.TagDetail]()),
		"TaskConnection":               mk(connectionOf[model.TaskConnection, upstream.Task]()),
		"TeamConnection":               mk(connectionOf[model.TeamConnection, upstream.Team]()),
		"UserConnection":               mk(connectionOf[model.UserConnection, upstream.User]()),
	}
	schema, err := ServedSchema()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for name := range schema.Types {
		if strings.HasSuffix(name, "Connection") {
			n++
			if _, ok := all[name]; !ok {
				t.Errorf("connection type %s is not checked here", name)
			}
		}
	}
	if n != len(all) {
		t.Errorf("the schema has %d connection types, %d are checked", n, len(all))
	}
	for name, b := range all {
		v := reflect.ValueOf(b.conn).Elem()
		if got := v.FieldByName("TotalCount").Int(); got != 5 {
			t.Errorf("%s.TotalCount = %d, want 5", name, got)
		}
		pi := v.FieldByName("PageInfo").Interface().(*model.PageInfo)
		if !pi.HasNextPage || !pi.HasPreviousPage || pi.StartCursor == nil || *pi.StartCursor != Cursor(1) || *pi.EndCursor != Cursor(2) {
			t.Errorf("%s.PageInfo = %+v", name, pi)
		}
		items := reflect.ValueOf(b.items)
		nodes, edges := v.FieldByName("Nodes"), v.FieldByName("Edges")
		if nodes.Len() != 2 || edges.Len() != 2 {
			t.Fatalf("%s: %d nodes, %d edges, want 2", name, nodes.Len(), edges.Len())
		}
		for i := range 2 {
			e := edges.Index(i)
			if c := e.FieldByName("Cursor").String(); c != Cursor(1+i) {
				t.Errorf("%s edge %d cursor %q, want %q", name, i, c, Cursor(1+i))
			}
			if e.FieldByName("Node").Pointer() != items.Index(i).Addr().Pointer() {
				t.Errorf("%s edge %d: node is not item %d", name, i, i)
			}
		}
	}
}
