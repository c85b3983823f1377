package upstream

// Announcement is a deprecated broadcast message.
type Announcement struct {
	ID                   string             `json:"id"`
	AccountID            string             `json:"accountId"`
	AnnouncementTargetID string             `json:"announcementTargetId"`
	AnnouncementType     string             `json:"announcementType"`
	Author               AnnouncementAuthor `json:"author"`
	AuthorID             string             `json:"authorId"`
	Comment              string             `json:"comment"`
	DateCreated          string             `json:"dateCreated"`
	NotificationStrategy string             `json:"notificationStrategy"`
	Notify               []string           `json:"notify"`
	Reactions            []Reaction         `json:"reactions"`
}

// AnnouncementAuthor is the embedded author of an announcement.
type AnnouncementAuthor struct {
	AccountID   string `json:"accountId"`
	DateCreated string `json:"dateCreated"`
	Email       string `json:"email"`
	FirstName   string `json:"firstName"`
	ID          string `json:"id"`
	Language    string `json:"language"`
	LastName    string `json:"lastName"`
	Name        string `json:"name"`
	Picture     string `json:"picture"`
}

// Reaction is one user's reaction to an announcement.
type Reaction struct {
	ReactionID string `json:"reactionId"`
	UserID     string `json:"userId"`
}

// KPIGroup groups KPIs; Favorite is per current user.
type KPIGroup struct {
	ID           string `json:"id"`
	AccountID    string `json:"accountId"`
	Name         string `json:"name"`
	Favorite     bool   `json:"favorite"`
	CreatedByID  string `json:"createdById"`
	ModifiedByID string `json:"modifiedById"`
	DateCreated  string `json:"dateCreated"`
	DateUpdated  string `json:"dateUpdated"`
}

// KPI is a tracked indicator that KPI groups hold.
type KPI struct {
	ID          string   `json:"id"`
	AccountID   string   `json:"accountId"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Value       float64  `json:"value"`
	OwnerID     string   `json:"ownerId"`
	GroupIDs    []string `json:"groupIds"`
	DateCreated string   `json:"dateCreated"`
	DateUpdated string   `json:"dateUpdated"`
}

// List is a saved, user-defined list over one target type.
type List struct {
	ID          string         `json:"id"`
	AccountID   string         `json:"accountId"`
	Title       string         `json:"title"`
	ListType    string         `json:"listType"`
	Columns     []ListColumn   `json:"columns"`
	Filter      map[string]any `json:"filter"`
	Sort        string         `json:"sort"`
	Fields      string         `json:"fields"`
	CreatedByID string         `json:"createdById"`
	DateCreated string         `json:"dateCreated"`
	DateUpdated string         `json:"dateUpdated"`
}

// ListColumn is one displayed column of a list.
type ListColumn struct {
	FieldName string `json:"fieldName"`
	Type      string `json:"type"`
	Width     int    `json:"width"`
}

// ListSchema describes the fields of one list target type.
type ListSchema struct {
	Type                   string          `json:"type"`
	TotalCount             int             `json:"totalCount"`
	CustomFieldsTotalCount int             `json:"customFieldsTotalCount"`
	Fields                 []FieldProperty `json:"fields"`
	CustomFieldsProperties []FieldProperty `json:"customFieldsProperties"`
}

// FieldProperty describes one field of a list target type.
type FieldProperty struct {
	DataType           string   `json:"dataType"`
	DefaultOperator    string   `json:"defaultOperator"`
	DisplayName        string   `json:"displayName"`
	FieldName          string   `json:"fieldName"`
	IsCustom           bool     `json:"isCustom"`
	IsFilterable       bool     `json:"isFilterable"`
	IsSelectable       bool     `json:"isSelectable"`
	IsSortable         bool     `json:"isSortable"`
	OperationalType    string   `json:"operationalType"`
	SupportedOperators []string `json:"supportedOperators"`
	TargetIDs          []string `json:"targetIds"`
}

// DashboardParameter is a selectable parameter of dashboards.
type DashboardParameter struct {
	ID               string   `json:"id"`
	Key              string   `json:"key"`
	Title            string   `json:"title"`
	DefaultValue     string   `json:"defaultValue"`
	EntityName       string   `json:"entityName"`
	EntityTitleField string   `json:"entityTitleField"`
	EntityValueField string   `json:"entityValueField"`
	PredefinedValues []string `json:"predefinedValues"`
	SelectorType     string   `json:"selectorType"`
}

// Dashboard is an insight board.
type Dashboard struct {
	ID                        string               `json:"id"`
	AccountID                 string               `json:"accountId"`
	Name                      string               `json:"name"`
	Access                    *Access              `json:"access,omitempty"`
	AppsCount                 int                  `json:"appsCount"`
	CurrentUserAllowedActions []string             `json:"currentUserAllowedActions"`
	Insights                  []InsightItem        `json:"insights"`
	InsightsCount             int                  `json:"insightsCount"`
	IsReport                  bool                 `json:"isReport"`
	Layout                    string               `json:"layout"`
	NotificationsCount        int                  `json:"notificationsCount"`
	Parameters                []DashboardParameter `json:"parameters"`
	ReadOnly                  bool                 `json:"readOnly"`
	SectionHeaders            []SectionHeaderItem  `json:"sectionHeaders"`
	SectionHeadersCount       int                  `json:"sectionHeadersCount"`
	Settings                  []Setting            `json:"settings"`
	Source                    DashboardSource      `json:"source"`
	Tag                       string               `json:"tag"`
	Tags                      []Tag                `json:"tags"`
	UsersCount                int                  `json:"usersCount"`
}

// DashboardSource says where a dashboard came from.
type DashboardSource struct {
	SourceApplication string `json:"sourceApplication"`
	SourceID          string `json:"sourceId"`
}

// InsightItem places an insight on a dashboard.
type InsightItem struct {
	ID                      string                  `json:"id"`
	DashboardID             string                  `json:"dashboardId"`
	InsightID               string                  `json:"insightId"`
	InsightName             string                  `json:"insightName"`
	InsightTitle            string                  `json:"insightTitle"`
	Type                    string                  `json:"type"`
	Col                     int                     `json:"col"`
	Row                     int                     `json:"row"`
	SizeX                   int                     `json:"sizeX"`
	SizeY                   int                     `json:"sizeY"`
	Filters                 []string                `json:"filters"`
	Settings                []Setting               `json:"settings"`
	InsightRequiredEntities []InsightRequiredEntity `json:"insightRequiredEntities"`
	InsightSource           InsightSource           `json:"insightSource"`
	InsightState            InsightState            `json:"insightState"`
}

// InsightRequiredEntity is a data entity an insight needs.
type InsightRequiredEntity struct {
	DataSourceIDs    []string `json:"dataSourceIds"`
	EntityName       string   `json:"entityName"`
	IsMissing        bool     `json:"isMissing"`
	RemoteEntityName string   `json:"remoteEntityName"`
}

// InsightSource says where an insight came from.
type InsightSource struct {
	OriginalVersion   string `json:"originalVersion"`
	SourceApplication string `json:"sourceApplication"`
}

// InsightState is the evaluation state of an insight.
type InsightState struct {
	Error    string          `json:"error"`
	Status   string          `json:"status"`
	Metadata InsightMetadata `json:"metadata"`
}

// InsightMetadata describes the data behind an insight.
type InsightMetadata struct {
	ConnectorName string `json:"connectorName"`
	Count         int    `json:"count"`
	DatasourceID  string `json:"datasourceId"`
	Names         string `json:"names"`
	Type          string `json:"type"`
}

// SectionHeaderItem places a section header on a dashboard.
type SectionHeaderItem struct {
	ID              string        `json:"id"`
	AccountID       string        `json:"accountId"`
	DashboardID     string        `json:"dashboardId"`
	SectionHeaderID string        `json:"sectionHeaderId"`
	Type            string        `json:"type"`
	Col             int           `json:"col"`
	Row             int           `json:"row"`
	SizeX           int           `json:"sizeX"`
	SizeY           int           `json:"sizeY"`
	SectionHeader   SectionHeader `json:"sectionHeader"`
}

// SectionHeader is the text of a dashboard section.
type SectionHeader struct {
	AccountID    string `json:"accountId"`
	CreatedByID  string `json:"createdById"`
	DateCreated  string `json:"dateCreated"`
	DateUpdated  string `json:"dateUpdated"`
	Header       string `json:"header"`
	ID           string `json:"id"`
	ModifiedByID string `json:"modifiedById"`
	SubHeader    string `json:"subHeader"`
}

// ReportSummary names a report dashboard.
type ReportSummary struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// DashboardTagUsage lists the dashboards carrying one tag.
type DashboardTagUsage struct {
	DashboardsCount int      `json:"dashboardsCount"`
	DashboardsIDs   []string `json:"dashboardsIds"`
	TagName         string   `json:"tagName"`
	TagTitle        string   `json:"tagTitle"`
}

// Badge is a recognition that can be assigned to users and teams.
type Badge struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Summary    string `json:"summary"`
	Icon       string `json:"icon"`
	Background string `json:"background"`
	Pattern    string `json:"pattern"`
}

// BadgeSummary is the short badge form on employees.
type BadgeSummary struct {
	Background string `json:"background"`
	Icon       string `json:"icon"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	Pattern    string `json:"pattern"`
}

// AssignedBadge is a badge assignment (or a request awaiting approval).
type AssignedBadge struct {
	ID                   string   `json:"id"`
	AccountID            string   `json:"accountId"`
	BadgeID              string   `json:"badgeId,omitempty"`
	Badge                *Badge   `json:"badge,omitempty"`
	AssignedByID         string   `json:"assignedById"`
	AssignedOn           string   `json:"assignedOn"`
	AssigneeIDs          []string `json:"assigneeIds"`
	ApprovedBy           string   `json:"approvedBy"`
	Comment              string   `json:"comment"`
	RichTextComment      string   `json:"richTextComment,omitempty"`
	NotificationStrategy string   `json:"notificationStrategy"`
	Notify               []string `json:"notify"`
	Status               string   `json:"status"`
}

// Badge assignment statuses.
const (
	BadgePending  = "pending"
	BadgeApproved = "approved"
	BadgeRejected = "rejected"
)

// BadgeAssignees lists the holders of a badge.
type BadgeAssignees struct {
	Teams []Team `json:"Teams"`
	Users []User `json:"Users"`
}
