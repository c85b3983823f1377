package upstream

import "context"

// API is the whole documented REST API as Go methods. Every method acts for
// the Caller in ctx and only ever sees that caller's account. Errors are
// *Error values with a Code; anything else is internal.
type API interface {
	AuthService
	TokenService // API tokens (tokens.go)
	GoalService
	MetricService
	TaskService
	SessionService
	// The organisation: accounts, users, employees, teams, roles, permissions (api_org.go).
	UserService
	AvatarService // users' uploaded pictures (avatar.go)
	TeamService
	AccountService
	EmployeeService
	RoleService
	PermissionService
	// The rest of the contract (api_content.go).
	TagService
	BadgeService
	DashboardService
	KPIService
	ListService
	AnnouncementService
	CommentService // comments on key results (comments.go)
	// Capabilities every backend has, though some serve them trivially:
	// entity tags of versioned resources (precondition.go) and the record
	// of idempotent requests (idempotency.go). They are part of the
	// interface rather than found by type assertion, so that a decorator
	// (instrument) or a facade sees them without probing.
	Versions
	Idempotency
	Writable
}

// Writable is a backend whose writes take options. Its consumers embed it
// in the interface they own (rest.Backend, resolvers.Backend), beside the
// services they call: the view Writing returns is a whole API, which
// satisfies any such interface, so a consumer keeps the view in the type it
// already holds and never names API itself.
type Writable interface {
	// Writing returns a view of the API whose writes apply opts (see
	// WriteOptions); its reads are the API's. It is how a precondition and
	// an idempotency key reach a write: the options are a value the caller
	// binds, visible where the write is called, as sql.Tx binds writes to
	// a transaction. A decorator returns itself around next's view.
	Writing(opts WriteOptions) API
}

// AuthService turns credentials into a Caller.
type AuthService interface {
	// Authenticate resolves a bearer token. It fails with CodeUnauthenticated
	// for an unknown token or a deactivated user, and CodePaymentRequired for
	// an inactive account.
	Authenticate(ctx context.Context, token string) (Caller, error)
	// AuthenticateMany authenticates tokens at once, each exactly as
	// Authenticate would (the same refusals, the same bookkeeping of its
	// use), at the cost of a few calls for the whole batch rather than
	// one per token: the live fan-out checks every subscriber's token
	// again before each batch of events. The result has one
	// Authentication per token, in order; a token repeated is checked
	// once. The error is for a failure of the whole batch (the store or
	// the upstream unavailable), when no token could be checked.
	AuthenticateMany(ctx context.Context, tokens []string) ([]Authentication, error)
}

// Authentication is the outcome for one token of AuthenticateMany: its
// caller, or the error Authenticate would have returned.
type Authentication struct {
	Caller Caller
	Err    error
}

// GoalService serves objectives.
type GoalService interface {
	ListGoals(ctx context.Context, q ListQuery) (Page[Goal], error)
	// GetGoal returns one goal with its key results embedded.
	GetGoal(ctx context.Context, id string) (Goal, error)
	CreateGoal(ctx context.Context, in GoalInput) (Goal, error)
	UpdateGoal(ctx context.Context, id string, in GoalPatch) (Goal, error)
	// DeleteGoal deletes a goal with its key results, their check-ins and
	// tasks; its child goals become roots.
	DeleteGoal(ctx context.Context, id string) error
	GoalsGroupedByOwners(ctx context.Context, q GroupByOwnersQuery) (GoalsGroupedBy, error)
	// AddGoalTag tags a goal, creating the tag on first use. added is false
	// when the goal already carried the tag.
	AddGoalTag(ctx context.Context, goalID, title string) (tag Tag, added bool, err error)
	// GoalsMet returns the goals of a session whose attainment is over 0.99,
	// restricted to goals carrying any of tags (names or titles) when given.
	GoalsMet(ctx context.Context, sessionID string, tags []string) ([]Goal, error)
}

// MetricService serves key results and their check-ins.
type MetricService interface {
	ListMetrics(ctx context.Context, q ListQuery) (Page[Metric], error)
	GetMetric(ctx context.Context, id string) (Metric, error)
	CreateMetric(ctx context.Context, in MetricInput) (Metric, error)
	UpdateMetric(ctx context.Context, id string, in MetricPatch) (Metric, error)
	// DeleteMetric deletes a key result with its check-ins and tasks.
	DeleteMetric(ctx context.Context, id string) error
	// CheckIn records a new actual value and recomputes the attainment of
	// the key result, its goal and every ancestor goal in one transaction.
	CheckIn(ctx context.Context, metricID string, in CheckInInput) (CheckIn, error)
	ListCheckIns(ctx context.Context, q ListQuery) (Page[CheckIn], error)
	// GetCheckInSnapshot returns the key result as it was right after the check-in.
	GetCheckInSnapshot(ctx context.Context, checkInID string) (Metric, error)
	// ListCheckInSnapshots lists check-ins as ListCheckIns does, each with
	// the key result as it was right after it: a key result's history in
	// pages, not one read per check-in (moving an account).
	ListCheckInSnapshots(ctx context.Context, q ListQuery) (Page[CheckInSnapshot], error)
}

// TaskService serves tasks.
type TaskService interface {
	ListTasks(ctx context.Context, q ListQuery) (Page[Task], error)
	GetTask(ctx context.Context, id string) (Task, error)
	CreateTask(ctx context.Context, in TaskInput) (Task, error)
	UpdateTask(ctx context.Context, id string, in TaskPatch) (Task, error)
	DeleteTask(ctx context.Context, id string) error
}

// SessionService serves planning sessions.
type SessionService interface {
	ListSessions(ctx context.Context, q ListQuery, includeDemo bool) (Page[Session], error)
	GetSession(ctx context.Context, id string) (Session, error)
	CreateSession(ctx context.Context, in SessionInput) (Session, error)
	UpdateSession(ctx context.Context, id string, in SessionPatch) (Session, error)
	// DeleteSession deletes an empty session; one that still holds goals is a conflict.
	DeleteSession(ctx context.Context, id string) error
}

// GoalInput creates a goal. Name and SessionID are required.
type GoalInput struct {
	Name                 string        `json:"name"`
	Description          string        `json:"description"`
	RichTextDescription  string        `json:"richTextDescription"`
	SessionID            string        `json:"sessionId"`
	ParentID             string        `json:"parentId"`
	OwnerID              string        `json:"ownerId"`
	OwnerIDs             []string      `json:"ownerIds"`
	DateFrom             string        `json:"dateFrom"`
	DateTo               string        `json:"dateTo"`
	AttainmentTypeString string        `json:"attainmentTypeString"`
	Private              bool          `json:"private"`
	OrderID              int           `json:"orderId"`
	Watchers             []string      `json:"watchers"`
	ClosedStatus         *ClosedStatus `json:"closedStatus"`
	Tags                 []TagInput    `json:"tags"`
	ExternalID           string        `json:"externalId" store:"copy"`
	ExternalSystem       string        `json:"externalSystem" store:"copy"`
}

// TagInput names a tag by title.
type TagInput struct {
	Title string `json:"title"`
}

// GoalPatch changes the fields of a goal that are set.
type GoalPatch struct {
	Name                 *string       `json:"name"`
	Description          *string       `json:"description"`
	RichTextDescription  *string       `json:"richTextDescription"`
	SessionID            *string       `json:"sessionId"`
	ParentID             *string       `json:"parentId"`
	OwnerID              *string       `json:"ownerId"`
	OwnerIDs             *[]string     `json:"ownerIds"`
	DateFrom             *string       `json:"dateFrom"`
	DateTo               *string       `json:"dateTo"`
	AttainmentTypeString *string       `json:"attainmentTypeString"`
	Private              *bool         `json:"private"`
	OrderID              *int          `json:"orderId"`
	Watchers             *[]string     `json:"watchers"`
	ClosedStatus         *ClosedStatus `json:"closedStatus" session:"progress"`
	ExternalID           *string       `json:"externalId" store:"copy"`
	ExternalSystem       *string       `json:"externalSystem" store:"copy"`
}

// MetricInput creates a key result. Name and GoalID are required.
type MetricInput struct {
	Name                string        `json:"name"`
	Description         string        `json:"description"`
	RichTextDescription string        `json:"richTextDescription"`
	GoalID              string        `json:"goalId"`
	OwnerID             string        `json:"ownerId"`
	OwnerIDs            []string      `json:"ownerIds"`
	InitialValue        float64       `json:"initialValue"`
	Target              *float64      `json:"target"`
	Actual              *float64      `json:"actual"`
	Critical            *float64      `json:"critical"`
	TargetOperator      string        `json:"targetOperator"`
	ManualType          string        `json:"manualType"`
	DueDate             string        `json:"dueDate"`
	SoftDueDate         string        `json:"softDueDate"`
	Format              *MetricFormat `json:"format"`
	Private             bool          `json:"private"`
	Settings            []Setting     `json:"settings"`
	ExternalID          string        `json:"externalId" store:"copy"`
}

// MetricPatch changes the fields of a key result that are set. The actual
// value changes only by check-in.
type MetricPatch struct {
	Name                *string       `json:"name"`
	Description         *string       `json:"description"`
	RichTextDescription *string       `json:"richTextDescription"`
	GoalID              *string       `json:"goalId"`
	OwnerID             *string       `json:"ownerId"`
	OwnerIDs            *[]string     `json:"ownerIds"`
	InitialValue        *float64      `json:"initialValue"`
	Target              *float64      `json:"target"`
	Critical            *float64      `json:"critical"`
	TargetOperator      *string       `json:"targetOperator"`
	ManualType          *string       `json:"manualType"`
	DueDate             *string       `json:"dueDate"`
	SoftDueDate         *string       `json:"softDueDate"`
	Format              *MetricFormat `json:"format"`
	Private             *bool         `json:"private"`
	Settings            *[]Setting    `json:"settings"`
	ExternalID          *string       `json:"externalId" store:"copy"`
}

// CheckInInput records a key result's new actual value. Actual is required.
type CheckInInput struct {
	Actual      *float64 `json:"actual"`
	CheckInDate string   `json:"checkInDate"`
	Comment     string   `json:"comment"`
	Confidence  *float64 `json:"confidence"`
}

// TaskInput creates a task. Name is required.
type TaskInput struct {
	Name                string `json:"name"`
	Description         string `json:"description"`
	RichTextDescription string `json:"richTextDescription"`
	DueDate             string `json:"dueDate"`
	OwnerID             string `json:"ownerId"`
	ParentID            string `json:"parentId"`
	ParentType          string `json:"parentType"`
	Status              string `json:"status"`
	Priority            int    `json:"priority"`
	TaskType            string `json:"taskType"`
	ExternalID          string `json:"externalId"`
	ExternalSystem      string `json:"externalSystem"`
}

// TaskPatch changes the fields of a task that are set.
type TaskPatch struct {
	Name                *string `json:"name"`
	Description         *string `json:"description"`
	RichTextDescription *string `json:"richTextDescription"`
	DueDate             *string `json:"dueDate"`
	OwnerID             *string `json:"ownerId"`
	ParentID            *string `json:"parentId"`
	ParentType          *string `json:"parentType"`
	Status              *string `json:"status"`
	Priority            *int    `json:"priority"`
	TaskType            *string `json:"taskType"`
	Archived            *bool   `json:"archived"`
	ExternalID          *string `json:"externalId"`
	ExternalSystem      *string `json:"externalSystem"`
	Comment             *string `json:"comment"`
}

// SessionInput creates a session. Title, Start and End are required.
type SessionInput struct {
	Title                string           `json:"title"`
	Status               string           `json:"status"`
	Start                string           `json:"start"`
	End                  string           `json:"end"`
	Color                string           `json:"color"`
	ParentID             string           `json:"parentId"`
	Demo                 bool             `json:"demo"`
	IsSelfApproveAllowed bool             `json:"isSelfApproveAllowed"`
	CadenceTimeZone      string           `json:"cadenceTimeZone"`
	CadenceType          string           `json:"cadenceType"`
	Cadence              *Cadence         `json:"cadence"`
	CadenceStart         *CadenceStart    `json:"cadenceStart"`
	Settings             *SessionSettings `json:"settings"`
	Workflow             *SessionWorkflow `json:"workflow"`
	// Access is the real platform's spelling of the session's access:
	// when set it gives inherits, ownerPermissions and permissions (null
	// keeps the defaults), as PUT /api/v1/permissions/default-access/session/{id} does.
	Access *Access `json:"access"`
}

// SessionPatch changes the fields of a session that are set.
type SessionPatch struct {
	Title                *string          `json:"title"`
	Status               *string          `json:"status"`
	Start                *string          `json:"start"`
	End                  *string          `json:"end"`
	Color                *string          `json:"color"`
	ParentID             *string          `json:"parentId"`
	IsSelfApproveAllowed *bool            `json:"isSelfApproveAllowed"`
	CadenceTimeZone      *string          `json:"cadenceTimeZone"`
	CadenceType          *string          `json:"cadenceType"`
	Cadence              *Cadence         `json:"cadence"`
	CadenceStart         *CadenceStart    `json:"cadenceStart"`
	Settings             *SessionSettings `json:"settings"`
	Workflow             *SessionWorkflow `json:"workflow"`
	// Access replaces the session's access when set (SessionInput.Access).
	Access *Access `json:"access"`
}

// GroupByOwnersQuery is the query of the goals-grouped-by-owners operation.
// Comparisons hold an operator ("<", "<=", ">", ">=", "=") and a number.
type GroupByOwnersQuery struct {
	Deadline         string // "", "current", "past" or "future"
	IDs              []string
	OwnerIDs         []string
	MetricOwnerIDs   []string
	Confidence       *Comparison
	Attainment       *Comparison
	MetricBefore     string // yyyy-mm-dd
	MetricAfter      string // yyyy-mm-dd
	MetricAttainment *Comparison
	Sort             ListQuery // only Sort is used
	IncludeMetrics   bool
	Skip             int
	Take             int
}

// Comparison is a numeric test such as ">0.5".
type Comparison struct {
	Op    string
	Value float64
}

// Holds reports whether v satisfies c.
func (c Comparison) Holds(v float64) bool {
	switch c.Op {
	case "<":
		return v < c.Value
	case "<=":
		return v <= c.Value
	case ">":
		return v > c.Value
	case ">=":
		return v >= c.Value
	default:
		return v == c.Value
	}
}

// GoalsGroupedBy is the response of the goals-grouped-by-owners operation:
// one group per owner, each with that owner's goals.
type GoalsGroupedBy struct {
	Items      []OwnerGoals `json:"items"`
	TotalCount int          `json:"totalCount"`
}

// OwnerGoals are the goals of one owner.
type OwnerGoals struct {
	OwnerID    string    `json:"ownerId"`
	Owner      *Assignee `json:"owner"`
	Goals      []Goal    `json:"goals"`
	TotalCount int       `json:"totalCount"`
}

// Credential is a bearer token and the account it acts in: what a live
// connection authenticates again and again, its account fixed when it
// opened. Account "" lets the token name its account (an API token's, an
// identity token's account claim).
type Credential struct {
	Token, Account string
}

// CredentialAuth authenticates credentials: a token in one account. A
// token acting in another account than the credential's is refused
// (CodeForbidden), so that a connection opened in one account never acts
// in another; an identity token without an account of its own acts in the
// credential's. The live transports re-authenticate their connections
// through it (package authn's Authenticator implements it).
type CredentialAuth interface {
	AuthenticateIn(ctx context.Context, cred Credential) (Caller, error)
	// AuthenticateManyIn is AuthenticateIn for a batch, as
	// AuthService.AuthenticateMany is for Authenticate.
	AuthenticateManyIn(ctx context.Context, creds []Credential) ([]Authentication, error)
}
