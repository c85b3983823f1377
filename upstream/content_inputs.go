package upstream

// TagQuery is the query of the tag listing: Name is a case-insensitive
// substring of the tag name (required by the REST facade; "" matches all).
type TagQuery struct {
	Name string
	ListQuery
}

// TagCreateInput creates tags: Title, Titles or both; at least one.
type TagCreateInput struct {
	Title  string   `json:"title"`
	Titles []string `json:"titles"`
}

// TagIDsInput names tags by id (activation and deactivation).
type TagIDsInput struct {
	TagIDs []string `json:"tagIds"`
}

// TagsPage is the tag listing's envelope ({tags, totalCount}).
type TagsPage[T any] struct {
	Tags       []T `json:"tags"`
	TotalCount int `json:"totalCount"`
}

// ModifiedCount is the answer of tag activation and deactivation.
type ModifiedCount struct {
	ModifiedCount int `json:"modifiedCount"`
}

// Tagging is one tag on one item.
type Tagging struct {
	ID       string `json:"id"` // "<tagId>:<itemId>"
	TagID    string `json:"tagId"`
	ItemID   string `json:"itemId"`
	ItemType string `json:"itemType"` // goal, dashboard, insight
	Added    string `json:"added"`
}

// Item types of taggings.
const (
	TaggedGoal      = "goal"
	TaggedDashboard = "dashboard"
	TaggedInsight   = "insight"
)

// CountedPage is the envelope of the dashboards and KPI-group listings:
// a page plus count, the number of items in this page.
type CountedPage[T any] struct {
	Count      int `json:"count"`
	Items      []T `json:"items"`
	TotalCount int `json:"totalCount"`
}

// BadgeInput creates a badge. Name is required.
type BadgeInput struct {
	Name       string `json:"name"`
	Summary    string `json:"summary"`
	Icon       string `json:"icon"`
	Background string `json:"background"`
	Pattern    string `json:"pattern"`
}

// BadgePatch changes the fields of a badge that are set.
type BadgePatch struct {
	Name       *string `json:"name"`
	Summary    *string `json:"summary"`
	Icon       *string `json:"icon"`
	Background *string `json:"background"`
	Pattern    *string `json:"pattern"`
}

// AssignBadgeInput requests a badge for users and/or teams. BadgeID and at
// least one assignee (a user or team id of the account) are required.
type AssignBadgeInput struct {
	BadgeID              string   `json:"badgeId"`
	AssigneeIDs          []string `json:"assigneeIds"`
	Comment              string   `json:"comment"`
	RichTextComment      string   `json:"richTextComment"`
	NotificationStrategy string   `json:"notificationStrategy"`
	Notify               []string `json:"notify"`
}

// DashboardInput creates a dashboard. Name is required.
type DashboardInput struct {
	Name           string              `json:"name"`
	Layout         string              `json:"layout"`
	IsReport       bool                `json:"isReport"`
	ReadOnly       bool                `json:"readOnly"`
	Access         *Access             `json:"access"`
	Settings       []Setting           `json:"settings"`
	Source         *DashboardSource    `json:"source"`
	Tag            string              `json:"tag"`
	Tags           []TagInput          `json:"tags"`
	ParameterIDs   []string            `json:"parameterIds"`
	Insights       []InsightItem       `json:"insights"`
	SectionHeaders []SectionHeaderItem `json:"sectionHeaders"`
}

// DashboardPatch changes the fields of a dashboard that are set.
type DashboardPatch struct {
	Name           *string              `json:"name"`
	Layout         *string              `json:"layout"`
	IsReport       *bool                `json:"isReport"`
	ReadOnly       *bool                `json:"readOnly"`
	Access         *Access              `json:"access"`
	Settings       *[]Setting           `json:"settings"`
	Source         *DashboardSource     `json:"source"`
	Tag            *string              `json:"tag"`
	ParameterIDs   *[]string            `json:"parameterIds"`
	Insights       *[]InsightItem       `json:"insights"`
	SectionHeaders *[]SectionHeaderItem `json:"sectionHeaders"`
}

// DashboardParameterInput creates or replaces a dashboard parameter. Key and
// Title are required; Key is unique in the account.
type DashboardParameterInput struct {
	Key              string   `json:"key"`
	Title            string   `json:"title"`
	DefaultValue     string   `json:"defaultValue"`
	EntityName       string   `json:"entityName"`
	EntityTitleField string   `json:"entityTitleField"`
	EntityValueField string   `json:"entityValueField"`
	PredefinedValues []string `json:"predefinedValues"`
	SelectorType     string   `json:"selectorType"`
}

// Dashboard parameter selector types.
var SelectorTypes = []string{"single", "multiple", "text", "date"}

// KPIGroupInput creates or renames a KPI group. Name is required.
type KPIGroupInput struct {
	Name string `json:"name"`
}

// KPIInput creates a KPI. Name is required; OwnerID defaults to the caller.
type KPIInput struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Value       float64  `json:"value"`
	OwnerID     string   `json:"ownerId"`
	GroupIDs    []string `json:"groupIds"`
}

// KPIPatch changes the fields of a KPI that are set (groups change through
// the group membership operations).
type KPIPatch struct {
	Name        *string  `json:"name"`
	Description *string  `json:"description"`
	Value       *float64 `json:"value"`
	OwnerID     *string  `json:"ownerId"`
}

// ListInput creates a list. Title and ListType (a supported target type)
// are required; Filter, Sort, Fields and the columns' field names are
// validated against the target type's field registry.
type ListInput struct {
	Title    string         `json:"title"`
	ListType string         `json:"listType"`
	Columns  []ListColumn   `json:"columns"`
	Filter   map[string]any `json:"filter"`
	Sort     string         `json:"sort"`
	Fields   string         `json:"fields"`
}

// ListPatch changes the fields of a list that are set; the target type
// does not change.
type ListPatch struct {
	Title   *string         `json:"title"`
	Columns *[]ListColumn   `json:"columns"`
	Filter  *map[string]any `json:"filter"`
	Sort    *string         `json:"sort"`
	Fields  *string         `json:"fields"`
}

// ListLoadInput overrides, for one load, what the list saved. Nil members
// use the list's own.
type ListLoadInput struct {
	Filter map[string]any `json:"filter"`
	Sort   *string        `json:"sort"`
	Fields *string        `json:"fields"`
	Skip   int            `json:"skip"`
	Limit  int            `json:"limit"`
}

// ListData is a list with the items it selects.
type ListData struct {
	List
	Items      []map[string]any `json:"items"`
	TotalCount int              `json:"totalCount"`
}

// SupportedTypes is the answer of the lists supported-types operation.
type SupportedTypes struct {
	SupportedTypes []string `json:"supportedTypes"`
}

// AnnouncementInput creates an announcement. Comment is required; AuthorID
// (spelled authorID, as the contract's create body does) defaults to the
// caller and must name a user of the account.
type AnnouncementInput struct {
	AnnouncementTargetID string   `json:"announcementTargetId"`
	AnnouncementType     string   `json:"announcementType"`
	AuthorID             string   `json:"authorID"`
	Comment              string   `json:"comment"`
	NotificationStrategy string   `json:"notificationStrategy"`
	Notify               []string `json:"notify"`
}

// AnnouncementPatch changes an announcement's comment.
type AnnouncementPatch struct {
	Comment *string `json:"comment"`
}

// ReactionInput is the body of the react operation.
type ReactionInput struct {
	ReactionID string `json:"reactionId"`
}
