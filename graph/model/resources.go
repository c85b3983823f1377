package model

import (
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// Resource is a GraphQL type of a listable REST resource and the field
// registry of that resource.
type Resource struct {
	Type string
	Reg  *query.Registry
	// Forms are other GraphQL types of the same resource, described by
	// the same registry but listed without filter inputs of their own
	// (TagDetail: a tag as the tag listing gives it).
	Forms []string
}

// Resources is the one map from GraphQL types to field registries. The
// filter inputs and orderBy enums of the schema are generated from it
// (graph/schemagen), and the served schema describes the fields of these
// types with their registry's texts (resolvers.ServedSchema).
// TestResourcesCoverTheRegistries fails when a GraphQL type bound to a
// registry's Go type (gqlgen.yml) is missing.
var Resources = []Resource{
	{Type: "Goal", Reg: upstream.GoalFields},
	{Type: "Metric", Reg: upstream.MetricFields},
	{Type: "CheckIn", Reg: upstream.CheckInFields},
	{Type: "Task", Reg: upstream.TaskFields},
	{Type: "Session", Reg: upstream.SessionFields},
	{Type: "User", Reg: upstream.UserFields},
	{Type: "Team", Reg: upstream.TeamFields},
	{Type: "Employee", Reg: upstream.EmployeeFields},
	{Type: "Role", Reg: upstream.RoleFields},
	{Type: "Tag", Reg: upstream.TagFields, Forms: []string{"TagDetail"}},
	{Type: "Dashboard", Reg: upstream.DashboardFields},
	{Type: "DashboardParameter", Reg: upstream.DashboardParameterFields},
	{Type: "Badge", Reg: upstream.BadgeFields},
	{Type: "AssignedBadge", Reg: upstream.AssignedBadgeFields},
	{Type: "KpiGroup", Reg: upstream.KPIGroupFields},
	{Type: "Kpi", Reg: upstream.KPIFields},
	{Type: "List", Reg: upstream.ListFields},
	{Type: "Announcement", Reg: upstream.AnnouncementFields},
}

// Registry returns the field registry of the GraphQL type typ, a resource
// or one of its forms (Resources), or nil.
func Registry(typ string) *query.Registry {
	for _, r := range Resources {
		if r.Type == typ {
			return r.Reg
		}
		for _, f := range r.Forms {
			if f == typ {
				return r.Reg
			}
		}
	}
	return nil
}
