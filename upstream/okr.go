package upstream

// Goal is an objective.
type Goal struct {
	ID                           string        `json:"id"`
	AccountID                    string        `json:"accountId"`
	Name                         string        `json:"name"`
	Description                  string        `json:"description"`
	RichTextDescription          string        `json:"richTextDescription"`
	Access                       *Access       `json:"access,omitempty"`
	AggregatedAttainment         float64       `json:"aggregatedAttainment"`
	ChildrenAggregatedAttainment float64       `json:"childrenAggregatedAttainment"`
	FullAggregatedAttainment     float64       `json:"fullAggregatedAttainment"`
	Attainment                   float64       `json:"attainment"`
	AttainmentTypeString         string        `json:"attainmentTypeString"`
	ChildrenCount                int           `json:"childrenCount"`
	SubTreeCount                 int           `json:"subTreeCount"`
	FullSubTreeCount             int           `json:"fullSubTreeCount"`
	ClosedStatus                 ClosedStatus  `json:"closedStatus"`
	CreatedByID                  string        `json:"createdById"`
	ModifiedByID                 string        `json:"modifiedById"`
	DateCreated                  string        `json:"dateCreated"`
	DateFrom                     string        `json:"dateFrom"`
	DateTo                       string        `json:"dateTo"`
	Duration                     int           `json:"duration"`
	DesignScore                  *DesignScore  `json:"designScore,omitempty"`
	Assignee                     *Assignee     `json:"assignee"`
	Assignees                    []Assignee    `json:"assignees"`
	OwnerID                      string        `json:"ownerId"`
	OwnerIDs                     []string      `json:"ownerIds"`
	NumberOfOwners               int           `json:"numberOfOwners"`
	Locked                       bool          `json:"locked"`
	Obfuscated                   bool          `json:"obfuscated"`
	Private                      bool          `json:"private"`
	OrderID                      int           `json:"orderId"`
	ParentID                     string        `json:"parentId"`
	ParentType                   string        `json:"parentType"`
	ParentGoalSessionID          string        `json:"parentGoalSessionId"`
	SessionID                    string        `json:"sessionId"`
	Metrics                      []Metric      `json:"metrics,omitempty"`
	MetricsCount                 int           `json:"metricsCount"`
	NonArchivedTasksCount        int           `json:"nonArchivedTasksCount"`
	Tasks                        []Task        `json:"tasks,omitempty"`
	TasksCount                   int           `json:"tasksCount"`
	Tags                         []Tag         `json:"tags"`
	Watchers                     []string      `json:"watchers"`
	Links                        *Links        `json:"links,omitempty"`
	URL                          string        `json:"url"`
	ExternalID                   string        `json:"externalId"`
	ExternalSystem               string        `json:"externalSystem"`
	Workflow                     *GoalWorkflow `json:"workflow,omitempty"`
	// CurrentUserAllowedActions are what the caller may do on the goal
	// (computed per read, per page; not stored).
	CurrentUserAllowedActions []string `json:"currentUserAllowedActions,omitempty"`
}

// DesignScore rates how well an objective is written.
type DesignScore struct {
	TotalPoints int            `json:"totalPoints"`
	Policies    []DesignPolicy `json:"policies"`
}

// DesignPolicy is one rule of a design score.
type DesignPolicy struct {
	IsPassed bool   `json:"isPassed"`
	Policy   string `json:"policy"`
	Score    int    `json:"score"`
}

// GoalWorkflow is the approval workflow state of a goal.
type GoalWorkflow struct {
	ApprovedAt      string           `json:"approvedAt"`
	Reviewers       []WorkflowReview `json:"reviewers"`
	ReviewersNeeded int              `json:"reviewersNeeded"`
	Status          string           `json:"status"`
}

// WorkflowReview is one reviewer's verdict.
type WorkflowReview struct {
	ID     string `json:"id"`
	Review string `json:"review"`
}

// Attainment modes of a goal (AttainmentTypeString).
const (
	AverageKR            = "average_kr"
	AverageChildren      = "average_children"
	AverageKRAndChildren = "average_kr_and_children"
)

// Metric is a key result.
type Metric struct {
	ID                        string         `json:"id"`
	AccountID                 string         `json:"accountId"`
	Name                      string         `json:"name"`
	Description               string         `json:"description"`
	RichTextDescription       string         `json:"richTextDescription"`
	Actual                    float64        `json:"actual"`
	InitialValue              float64        `json:"initialValue"`
	Target                    float64        `json:"target"`
	Critical                  *float64       `json:"critical"`
	TargetOperator            string         `json:"targetOperator"`
	CascadeType               string         `json:"cascadeType"`
	ManualType                string         `json:"manualType"`
	Dynamic                   bool           `json:"dynamic"`
	FieldName                 string         `json:"fieldName"`
	InsightName               string         `json:"insightName"`
	DueDate                   string         `json:"dueDate"`
	SoftDueDate               string         `json:"softDueDate"`
	Format                    MetricFormat   `json:"format"`
	GoalID                    string         `json:"goalId"`
	GoalName                  string         `json:"goalName"`
	GoalDescription           string         `json:"goalDescription"`
	GoalOwnerID               string         `json:"goalOwnerId"`
	GoalOwnerIDs              []string       `json:"goalOwnerIds"`
	GoalClosedStatus          ClosedStatus   `json:"goalClosedStatus"`
	OwnerID                   string         `json:"ownerId"`
	OwnerIDs                  []string       `json:"ownerIds"`
	NumberOfOwners            int            `json:"numberOfOwners"`
	Assignee                  *Assignee      `json:"assignee"`
	Assignees                 []Assignee     `json:"assignees"`
	SessionID                 string         `json:"sessionId"`
	SourceMetricID            string         `json:"sourceMetricId"`
	TargetMetrics             map[string]any `json:"targetMetrics"`
	TasksCount                int            `json:"tasksCount"`
	Obfuscated                bool           `json:"obfuscated"`
	Private                   bool           `json:"private"`
	CurrentUserAllowedActions []string       `json:"currentUserAllowedActions"`
	Settings                  []Setting      `json:"settings"`
	Tasks                     []Task         `json:"tasks,omitempty"`
	Links                     *Links         `json:"links,omitempty"`
	URL                       string         `json:"url"`
	ExternalID                string         `json:"externalId"`
	// Attainment, Confidence and LastCheckInDate are not in the contract's
	// field table but every client of the original API reads them.
	// LastCheckInDate is left out until the first check-in: clients decode
	// it as a timestamp, and "" is not one (the platform's command-line client
	// stops decoding its list of key results at the first one).
	Attainment      float64  `json:"attainment"`
	Confidence      *float64 `json:"confidence"`
	LastCheckInDate string   `json:"lastCheckInDate,omitempty"`
}

// MetricFormat says how to display a key result's values.
type MetricFormat struct {
	ID           string `json:"ID"`
	FractionSize int    `json:"fractionSize"`
	Prefix       string `json:"prefix"`
	Suffix       string `json:"suffix"`
}

// Target operators of a key result.
const (
	AtLeast    = "at_least"
	AtMost     = "at_most"
	StayAbove  = "stay_above"
	StayBelow  = "stay_below"
	TypeDouble = "double"
	TypeBool   = "boolean"
)

// CheckIn is one recorded update of a key result's actual value: a snapshot
// in its history.
type CheckIn struct {
	ID             string   `json:"id"`
	AccountID      string   `json:"accountId"`
	MetricID       string   `json:"metricId"`
	GoalID         string   `json:"goalId"`
	Actual         float64  `json:"actual"`
	PreviousActual float64  `json:"previousActual"`
	Attainment     float64  `json:"attainment"`
	CheckInDate    string   `json:"checkInDate"`
	Comment        string   `json:"comment"`
	Confidence     *float64 `json:"confidence"`
	CreatedByID    string   `json:"createdById"`
	DateCreated    string   `json:"dateCreated"`
}

// CheckInSnapshot is a check-in with the key result as it was right after
// it (GET /api/v1/metrics/checkin/{id} for one check-in).
type CheckInSnapshot struct {
	CheckIn
	KeyResult Metric `json:"keyResult"`
}

// Task is a piece of work, optionally under a goal or a key result.
type Task struct {
	ID                  string         `json:"id"`
	AccountID           string         `json:"accountId"`
	Name                string         `json:"name"`
	Description         string         `json:"description"`
	RichTextDescription string         `json:"richTextDescription"`
	Status              string         `json:"status"`
	TaskType            string         `json:"taskType"`
	Priority            int            `json:"priority"`
	Archived            bool           `json:"archived"`
	DueDate             string         `json:"dueDate"`
	OwnerID             string         `json:"ownerId"`
	Assignee            *Assignee      `json:"assignee"`
	ParentID            string         `json:"parentId"`
	ParentName          string         `json:"parentName"`
	ParentType          string         `json:"parentType"`
	SessionID           string         `json:"sessionId"`
	ExternalID          string         `json:"externalId"`
	ExternalSystem      string         `json:"externalSystem"`
	CreatedByID         string         `json:"createdById"`
	ModifiedByID        string         `json:"modifiedById"`
	DateCreated         string         `json:"dateCreated"`
	DateModified        string         `json:"dateModified"`
	Access              *Access        `json:"access,omitempty"`
	LastComment         *TaskComment   `json:"lastComment,omitempty"`
	Snapshots           []TaskSnapshot `json:"snapshots"`
}

// TaskComment is the latest comment on a task.
type TaskComment struct {
	CreatedByID string `json:"createdById"`
	Text        string `json:"text"`
}

// TaskSnapshot records one status change of a task.
type TaskSnapshot struct {
	ID                   string `json:"id"`
	ModifiedAt           string `json:"modifiedAt"`
	ModifiedBy           string `json:"modifiedBy"`
	NewStatus            string `json:"newStatus"`
	OldStatus            string `json:"oldStatus"`
	PreviouslyModifiedAt string `json:"previouslyModifiedAt"`
}

// Task statuses and parent types.
const (
	TaskTodo       = "todo"
	TaskInProgress = "inprogress"
	TaskDone       = "done"
	ParentGoal     = "goal"
	ParentMetric   = "metric"
)

// Session is a planning period that goals belong to.
type Session struct {
	ID                        string            `json:"id"`
	AccountID                 string            `json:"accountId"`
	Title                     string            `json:"title"`
	Status                    string            `json:"status"`
	Start                     string            `json:"start"`
	End                       string            `json:"end"`
	Color                     string            `json:"color"`
	Demo                      bool              `json:"demo"`
	DynamicValueType          string            `json:"dynamicValueType"`
	ParentID                  string            `json:"parentId"`
	Inherits                  bool              `json:"inherits"`
	IsSelfApproveAllowed      bool              `json:"isSelfApproveAllowed"`
	CurrentUserAllowedActions []string          `json:"currentUserAllowedActions"`
	OwnerPermissions          *OwnerPermissions `json:"ownerPermissions,omitempty"`
	Permissions               []PermissionEntry `json:"permissions"`
	Tags                      []Tag             `json:"tags"`
	Cadence                   *Cadence          `json:"cadence,omitempty"`
	CadenceStart              *CadenceStart     `json:"cadenceStart,omitempty"`
	CadenceTimeZone           string            `json:"cadenceTimeZone"`
	CadenceType               string            `json:"cadenceType"`
	Settings                  SessionSettings   `json:"settings"`
	Workflow                  *SessionWorkflow  `json:"workflow,omitempty"`
}

// Session statuses.
const (
	SessionOpen   = "open"
	SessionLocked = "locked"
	SessionClosed = "closed"
)

// Cadence is the check-in rhythm of a session.
type Cadence struct {
	Type          string         `json:"type"`
	TotalCadences int            `json:"totalCadences"`
	Ranges        []CadenceRange `json:"ranges"`
}

// CadenceRange is one period of a cadence.
type CadenceRange struct {
	CadenceOrder int    `json:"cadenceOrder"`
	Start        string `json:"start"`
	End          string `json:"end"`
}

// CadenceStart anchors a cadence in the calendar.
type CadenceStart struct {
	DayOfMonth    int    `json:"dayOfMonth"`
	PeriodOfMonth string `json:"periodOfMonth"`
	Weekday       int    `json:"weekday"`
}

// SessionSettings are the per-session rules, including the caps that writes enforce.
type SessionSettings struct {
	AssignGoalPermissions       string         `json:"assignGoalPermissions"`
	AssignMetricPermissions     string         `json:"assignMetricPermissions"`
	GoalsPerOwnerLimit          int            `json:"goalsPerOwnerLimit"`
	MetricsPerGoalLimit         int            `json:"metricsPerGoalLimit"`
	MultipleOwners              MultipleOwners `json:"multipleOwners"`
	ProgressAggregationDisabled bool           `json:"progressAggregationDisabled"`
}

// MultipleOwners switches multi-ownership off per item kind.
type MultipleOwners struct {
	DisabledForGoals   bool `json:"disabledForGoals"`
	DisabledForMetrics bool `json:"disabledForMetrics"`
}

// SessionWorkflow is the approval workflow configuration of a session.
type SessionWorkflow struct {
	Reviewers         int              `json:"reviewers"`
	Target            []string         `json:"target"`
	EditableKrFields  []string         `json:"editableKrFields"`
	EditableOkrFields []string         `json:"editableOkrFields"`
	ApprovalSettings  ApprovalSettings `json:"approvalSettings"`
}

// ApprovalSettings says who may approve in a workflow.
type ApprovalSettings struct {
	EveryoneCanApprove    bool     `json:"everyoneCanApprove"`
	TeamsAllowedToApprove []string `json:"teamsAllowedToApprove"`
	UsersAllowedToApprove []string `json:"usersAllowedToApprove"`
}
