package upstream

import (
	"slices"

	"github.com/okrgate/okrgate/upstream/query"
)

// The field registries of the rest of the contract (see fields.go).
var (
	TagFields                = query.NewRegistry("tag", tagFields()...)
	TaggingFields            = query.NewRegistry("tagging", taggingFields()...)
	BadgeFields              = query.NewRegistry("badge", badgeFields()...)
	AssignedBadgeFields      = query.NewRegistry("assignedBadge", assignedBadgeFields()...)
	DashboardFields          = query.NewRegistry("dashboard", dashboardFields()...)
	DashboardParameterFields = query.NewRegistry("dashboardParameter", dashboardParameterFields()...)
	KPIGroupFields           = query.NewRegistry("kpiGroup", kpiGroupFields()...)
	KPIFields                = query.NewRegistry("kpi", kpiFields()...)
	ListFields               = query.NewRegistry("list", listFields()...)
	AnnouncementFields       = query.NewRegistry("announcement", announcementFields()...)
)

func init() {
	AssignedBadgeFields.SetSub("badge", BadgeFields)
	DashboardFields.SetSub("parameters", DashboardParameterFields)
}

// ListTargets are the target types of saved lists, each with the registry of
// its listing: what the lists schema describes and what load validates and
// runs against.
var ListTargets = map[string]*query.Registry{
	"goal":    GoalFields,
	"metric":  MetricFields,
	"task":    TaskFields,
	"session": SessionFields,
	"team":    TeamFields,
	"user":    UserFields,
	"kpi":     KPIFields,
}

// ListTargetTypes returns the supported list target types, sorted.
func ListTargetTypes() []string {
	out := make([]string, 0, len(ListTargets))
	for t := range ListTargets {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// ListSchemaFor describes a list target type from its field registry: one
// field property per registry field, in declaration order. The registries
// have no custom fields, so customFieldsProperties is empty.
func ListSchemaFor(targetType string) (ListSchema, error) {
	reg, ok := ListTargets[targetType]
	if !ok {
		return ListSchema{}, Invalid("targetType", "%q is not a supported list type; use one of %v", targetType, ListTargetTypes())
	}
	fs := reg.Fields()
	out := ListSchema{Type: targetType, Fields: make([]FieldProperty, 0, len(fs)), CustomFieldsProperties: []FieldProperty{}}
	for _, f := range fs {
		out.Fields = append(out.Fields, FieldPropertyOf(f))
	}
	out.TotalCount = len(out.Fields)
	return out, nil
}

// FieldPropertyOf describes one registry field as the lists schema shows it.
func FieldPropertyOf(f query.Field) FieldProperty {
	p := FieldProperty{
		DataType:           f.Type.String(),
		DisplayName:        f.Display,
		FieldName:          f.Name,
		IsFilterable:       f.Filterable,
		IsSelectable:       true,
		IsSortable:         f.Sortable,
		OperationalType:    operationalType(f.Type),
		SupportedOperators: []string{},
		TargetIDs:          []string{},
	}
	if f.Filterable {
		p.SupportedOperators = OperatorsOf(f.Type)
		p.DefaultOperator = "$eq"
	}
	return p
}

// OperatorsOf returns the filter operators that apply to a field of type t
// (besides the logical $and, $or, $nor and the field-level $not).
func OperatorsOf(t query.Type) []string {
	switch t {
	case query.String, query.StringList:
		return []string{"$eq", "$ne", "$in", "$nin", "$regex", "$exists"}
	case query.Number, query.Integer, query.DateTime, query.Date:
		return []string{"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"}
	case query.Bool:
		return []string{"$eq", "$ne", "$exists"}
	case query.ID:
		return []string{"$eq", "$ne", "$in", "$nin", "$exists"}
	}
	return []string{}
}

func operationalType(t query.Type) string {
	switch t {
	case query.String:
		return "text"
	case query.Number, query.Integer:
		return "number"
	case query.DateTime, query.Date:
		return "date"
	case query.Bool:
		return "boolean"
	case query.ID:
		return "reference"
	case query.StringList:
		return "list"
	}
	return "object"
}

func tagFields() []query.Field {
	return []query.Field{
		fs("id", query.ID),
		fs("name", query.String),
		fs("title", query.String),
		fs("isActive", query.Bool),
		fs("createdBy", query.ID),
		fs("dateCreated", query.DateTime),
		fs("dashboardsTaggedCount", query.Integer),
		fs("goalsTaggedCount", query.Integer),
		fs("itemsTaggedCount", query.Integer),
	}
}

func taggingFields() []query.Field {
	return []query.Field{
		col(fs("id", query.String), "id"),
		col(fs("accountId", query.ID), "account_id"),
		col(fs("tagId", query.ID), "tag_id"),
		col(fs("itemId", query.ID), "item_id"),
		col(fs("itemType", query.String), "item_type"),
		col(fs("added", query.DateTime), "added"),
	}
}

func badgeFields() []query.Field {
	return append(baseFields(),
		fs("name", query.String),
		fs("summary", query.String),
		fs("icon", query.String),
		fs("background", query.String),
		fs("pattern", query.String),
	)
}

func assignedBadgeFields() []query.Field {
	return append(baseFields(),
		col(fs("badgeId", query.ID), "badge_id"),
		obj("badge"),
		fs("assignedById", query.ID),
		fs("assignedOn", query.DateTime),
		ff("assigneeIds", query.StringList),
		fs("approvedBy", query.String),
		fs("comment", query.String),
		ff("richTextComment", query.String),
		fs("notificationStrategy", query.String),
		ff("notify", query.StringList),
		col(fs("status", query.String), "status"),
	)
}

func dashboardFields() []query.Field {
	return append(baseFields(),
		fs("name", query.String),
		obj("access"),
		fs("appsCount", query.Integer),
		obj("currentUserAllowedActions"),
		obj("insights"),
		fs("insightsCount", query.Integer),
		fs("isReport", query.Bool),
		fs("layout", query.String),
		fs("notificationsCount", query.Integer),
		obj("parameters"),
		fs("readOnly", query.Bool),
		obj("sectionHeaders"),
		fs("sectionHeadersCount", query.Integer),
		obj("settings"),
		obj("source"),
		fs("source.sourceApplication", query.String),
		fs("source.sourceId", query.String),
		fs("tag", query.String),
		obj("tags"),
		fs("usersCount", query.Integer),
	)
}

func dashboardParameterFields() []query.Field {
	return []query.Field{
		col(fs("id", query.ID), "id"),
		col(fs("accountId", query.ID), "account_id"),
		col(fs("key", query.String), "key"),
		fs("title", query.String),
		fs("defaultValue", query.String),
		fs("entityName", query.String),
		fs("entityTitleField", query.String),
		fs("entityValueField", query.String),
		ff("predefinedValues", query.StringList),
		fs("selectorType", query.String),
	}
}

func kpiGroupFields() []query.Field {
	return append(baseFields(),
		fs("name", query.String),
		// favorite is per caller, computed on read: shown, not filtered.
		query.Field{Name: "favorite", Type: query.Bool},
		fs("createdById", query.ID),
		fs("modifiedById", query.ID),
		fs("dateCreated", query.DateTime),
		fs("dateUpdated", query.DateTime),
	)
}

func kpiFields() []query.Field {
	return append(baseFields(),
		fs("name", query.String),
		fs("description", query.String),
		fs("value", query.Number),
		fs("ownerId", query.ID),
		ff("groupIds", query.StringList),
		fs("dateCreated", query.DateTime),
		fs("dateUpdated", query.DateTime),
	)
}

func listFields() []query.Field {
	return append(baseFields(),
		fs("title", query.String),
		fs("listType", query.String),
		obj("columns"),
		obj("filter"),
		fs("sort", query.String),
		fs("fields", query.String),
		fs("createdById", query.ID),
		fs("dateCreated", query.DateTime),
		fs("dateUpdated", query.DateTime),
	)
}

func announcementFields() []query.Field {
	return append(baseFields(),
		fs("announcementTargetId", query.String),
		fs("announcementType", query.String),
		obj("author"),
		fs("authorId", query.ID),
		fs("comment", query.String),
		fs("dateCreated", query.DateTime),
		fs("notificationStrategy", query.String),
		ff("notify", query.StringList),
		obj("reactions"),
	)
}

// DashboardTagUsageFields describes the dashboard tag-usage items, for the
// fields parameter of that operation.
var DashboardTagUsageFields = query.NewRegistry("dashboardTagUsage",
	fs("tagName", query.String),
	fs("tagTitle", query.String),
	fs("dashboardsCount", query.Integer),
	ff("dashboardsIds", query.StringList),
)
