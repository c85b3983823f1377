package upstream

// Assignee is the owner of an item as shown on goals, key results and tasks:
// a user or a team (Type "user" or "team").
type Assignee struct {
	AccountID        string `json:"accountId"`
	Avatar           string `json:"avatar"`
	Color            string `json:"color"`
	DynamicValueType string `json:"dynamicValueType"`
	Email            string `json:"email"`
	ID               string `json:"id"`
	IsActive         bool   `json:"isActive"`
	Name             string `json:"name"`
	Picture          string `json:"picture"`
	Tags             []Tag  `json:"tags"`
	Type             string `json:"type"`
}

// Tag labels goals, dashboards and insights. Its identity within an account
// is Name, the lowercased, space-trimmed Title (see TagName).
type Tag struct {
	CreatedBy   string `json:"createdBy"`
	DateCreated string `json:"dateCreated"`
	ID          string `json:"id"`
	IsActive    bool   `json:"isActive"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Items       []Tag  `json:"items,omitempty"`
}

// TagDetail is a tag as the tag listing shows it, with usage counts.
type TagDetail struct {
	ID                    string `json:"id"`
	Name                  string `json:"name"`
	Title                 string `json:"title"`
	IsActive              bool   `json:"isActive"`
	CreatedBy             string `json:"createdBy"`
	DateCreated           string `json:"dateCreated"`
	DashboardsTaggedCount int    `json:"dashboardsTaggedCount"`
	GoalsTaggedCount      int    `json:"goalsTaggedCount"`
	ItemsTaggedCount      int    `json:"itemsTaggedCount"`
	// LastUsed orders the listing (most recent first); not part of the contract's shape.
	LastUsed string `json:"-"`
}

// Access is the per-item access control of sessions, goals and dashboards.
type Access struct {
	Inherits         bool              `json:"inherits"`
	OwnerPermissions *OwnerPermissions `json:"ownerPermissions,omitempty"`
	Permissions      []PermissionEntry `json:"permissions"`
}

// OwnerPermissions are the grants and denials an item's owners get.
type OwnerPermissions struct {
	Deny  map[string]int `json:"deny"`
	Grant map[string]int `json:"grant"`
}

// PermissionEntry grants or denies actions on an item to one principal.
type PermissionEntry struct {
	Deny          map[string]int `json:"deny"`
	Grant         map[string]int `json:"grant"`
	PrincipalID   string         `json:"principalId"`
	PrincipalKind string         `json:"principalKind"`
}

// DynamicValue is a team-relative value of a setting.
type DynamicValue struct {
	TeamID string `json:"teamId"`
	Type   string `json:"type"`
}

// Setting is one entry of the settings arrays of key results and dashboards.
type Setting struct {
	DynamicValues           []DynamicValue `json:"dynamicValues"`
	Name                    string         `json:"name"`
	Value                   string         `json:"value"`
	ValueDisplayName        string         `json:"valueDisplayName"`
	ValueDisplayNameAsArray []string       `json:"valueDisplayNameAsArray,omitempty"`
}

// Links carries embedded summaries of related items.
type Links struct {
	Expanded LinksExpanded `json:"expanded"`
}

// LinksExpanded holds the embedded summaries.
type LinksExpanded struct {
	Goals    []GoalSummary    `json:"goals"`
	Metrics  []MetricSummary  `json:"metrics"`
	Sessions []SessionSummary `json:"sessions"`
}

// GoalSummary is the embedded form of a goal.
type GoalSummary struct {
	Access               *Access    `json:"access,omitempty"`
	AccountID            string     `json:"accountId"`
	Assignee             *Assignee  `json:"assignee,omitempty"`
	Assignees            []Assignee `json:"assignees"`
	Attainment           float64    `json:"attainment"`
	AttainmentTypeString string     `json:"attainmentTypeString"`
	CreatedByID          string     `json:"createdById"`
	DateCreated          string     `json:"dateCreated"`
	DateFrom             string     `json:"dateFrom"`
	DateTo               string     `json:"dateTo"`
	Description          string     `json:"description"`
	ID                   string     `json:"id"`
	Name                 string     `json:"name"`
	NumberOfOwners       int        `json:"numberOfOwners"`
	Obfuscated           bool       `json:"obfuscated"`
	OwnerID              string     `json:"ownerId"`
	OwnerIDs             []string   `json:"ownerIds"`
	ParentGoalSessionID  string     `json:"parentGoalSessionId"`
	ParentID             string     `json:"parentId"`
	ParentType           string     `json:"parentType"`
	Private              bool       `json:"private"`
	RichTextDescription  string     `json:"richTextDescription"`
	SessionID            string     `json:"sessionId"`
	URL                  string     `json:"url"`
}

// MetricSummary is the embedded form of a key result.
type MetricSummary struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	GoalID     string  `json:"goalId"`
	Attainment float64 `json:"attainment"`
}

// SessionSummary is the embedded form of a session.
type SessionSummary struct {
	AccountID   string            `json:"accountId"`
	End         string            `json:"end"`
	ID          string            `json:"id"`
	Inherits    bool              `json:"inherits"`
	ParentID    string            `json:"parentId"`
	Permissions []PermissionEntry `json:"permissions"`
	Start       string            `json:"start"`
	Status      string            `json:"status"`
	Title       string            `json:"title"`
}

// ClosedStatus is the closing state of a goal: status "active" (default),
// "achieved" or "abandoned", with an optional reason.
type ClosedStatus struct {
	Reason string `json:"reason"`
	Status string `json:"status"`
}

// Goal statuses (ClosedStatus.Status).
const (
	GoalActive    = "active"
	GoalAchieved  = "achieved"
	GoalAbandoned = "abandoned"
)
