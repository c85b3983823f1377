package upstream

// Account is a tenant: every other resource belongs to exactly one.
type Account struct {
	ID                 string                `json:"id"`
	Name               string                `json:"name"`
	Domain             string                `json:"domain"`
	Language           string                `json:"language"`
	OwnerID            string                `json:"ownerId"`
	Settings           string                `json:"settings"`
	IsActive           bool                  `json:"isActive"`
	CsManaged          bool                  `json:"csManaged"`
	BillingSystem      string                `json:"billingSystem"`
	DateCreated        string                `json:"dateCreated"`
	TrialEnds          string                `json:"trialEnds"`
	Type               int                   `json:"type"`
	SubscriptionID     string                `json:"subscriptionId"`
	ConfidenceSettings ConfidenceSettings    `json:"confidenceSettings"`
	Edition            Edition               `json:"edition"`
	Subscriptions      []Subscription        `json:"subscriptions"`
	TrackingProperties TrackingProperties    `json:"trackingProperties"`
	Notifications      *NotificationSettings `json:"notifications,omitempty"`
}

// ConfidenceSettings maps confidence values to named, coloured ranges.
type ConfidenceSettings struct {
	ConfidenceType    string              `json:"confidenceType"`
	ConfidenceMapping []ConfidenceMapping `json:"confidenceMapping"`
}

// ConfidenceMapping is one named range of confidence values.
type ConfidenceMapping struct {
	Color string          `json:"color"`
	Name  string          `json:"name"`
	Range ConfidenceRange `json:"range"`
}

// ConfidenceRange is an inclusive range of confidence values.
type ConfidenceRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Edition is the product edition of an account.
type Edition struct {
	Features      []string `json:"features"`
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	PlanID        string   `json:"planId"`
	TrialDuration int      `json:"trialDuration"`
}

// Subscription is one billing subscription of an account.
type Subscription struct {
	AcquisitionMode   string `json:"acquisition_mode"`
	AllowCancellation bool   `json:"allowCancellation"`
	IsConverted       bool   `json:"isConverted"`
	SignedUsersCount  int    `json:"signedUsersCount"`
	Type              string `json:"type"`
	UsersAllowed      int    `json:"usersAllowed"`
	UsersCount        int    `json:"usersCount"`
}

// TrackingProperties are product-analytics switches of an account.
type TrackingProperties struct {
	EnableLiveChat   bool `json:"enableLiveChat"`
	IgnoreConversion bool `json:"ignoreConversion"`
	ShouldTrack      bool `json:"shouldTrack"`
}

// NotificationSettings are an account's reminder and report schedules.
type NotificationSettings struct {
	Cadence              string        `json:"cadence"`
	CadenceCheckIn       string        `json:"cadenceCheckIn"`
	CadenceReports       string        `json:"cadenceReports"`
	Timezone             string        `json:"timezone"`
	CheckinDeadline      Deadline      `json:"checkinDeadline"`
	ReportsDeadline      Deadline      `json:"reportsDeadline"`
	RetrospectiveMeeting Deadline      `json:"retrospectiveMeeting"`
	ReportOptions        ReportOptions `json:"reportOptions"`
}

// Deadline is a weekly reminder schedule.
type Deadline struct {
	DayOfTheWeek      string         `json:"dayOfTheWeek"`
	DisableConstraint bool           `json:"disableConstraint"`
	PeriodStart       string         `json:"periodStart"`
	LastReminded      string         `json:"lastReminded,omitempty"`
	LastScheduled     string         `json:"lastScheduled,omitempty"`
	RemindAt          RemindAt       `json:"remindAt"`
	ReportChannels    ReportChannels `json:"reportChannels"`
}

// RemindAt is a time of day.
type RemindAt struct {
	Hour   int `json:"hour"`
	Minute int `json:"minute"`
}

// ReportChannels says where reminders go.
type ReportChannels struct {
	Email   bool `json:"email"`
	MsTeams bool `json:"msTeams"`
	Slack   bool `json:"slack"`
}

// ReportOptions tunes the content of reports.
type ReportOptions struct {
	ControlDangerOnGoalConfidence           bool `json:"controlDangerOnGoalConfidence"`
	GoalConfidenceToUpdateMetricLastUpdated bool `json:"goalConfidenceToUpdateMetricLastUpdated"`
	IncludeOpenSessions                     bool `json:"includeOpenSessions"`
	IncludePeopleWithoutObjectives          bool `json:"includePeopleWithoutObjectives"`
	IncludeSessionsWithoutMetrics           bool `json:"includeSessionsWithoutMetrics"`
	IncludeTeamsWithoutObjectives           bool `json:"includeTeamsWithoutObjectives"`
}

// User is a person with a login in one account.
type User struct {
	ID                   string              `json:"id"`
	AccountID            string              `json:"accountId"`
	AccountDomain        string              `json:"accountDomain"`
	AccountName          string              `json:"accountName"`
	ClientID             string              `json:"clientId"`
	CreatedByID          string              `json:"createdById"`
	DateCreated          string              `json:"dateCreated"`
	DateInvited          string              `json:"dateInvited"`
	InvitedBy            string              `json:"invitedBy"`
	Email                string              `json:"email"`
	FirstName            string              `json:"firstName"`
	LastName             string              `json:"lastName"`
	Name                 string              `json:"name"`
	Language             string              `json:"language"`
	Picture              string              `json:"picture"`
	IsActive             bool                `json:"isActive"`
	IsPrimary            bool                `json:"isPrimary"`
	IsSSOBased           bool                `json:"isSSOBased"`
	IsSwitched           bool                `json:"isSwitched"`
	Identities           Identities          `json:"identities"`
	NotificationSettings NotificationOptOuts `json:"notificationSettings"`
	Permissions          []string            `json:"permissions"`
	PictureInfo          PictureInfo         `json:"pictureInfo"`
	Roles                []UserRole          `json:"roles"`
	Settings             string              `json:"settings"`
	SubscriptionType     string              `json:"subscriptionType"`
	TeamIDs              []string            `json:"teamIds"`
	UserSettings         map[string]any      `json:"userSettings"`
}

// Identities lists the login identities of a user.
type Identities struct {
	Items      []Identity `json:"items"`
	TotalCount int        `json:"totalCount"`
}

// Identity is one login identity.
type Identity struct {
	ClientID   string `json:"clientId"`
	Connection string `json:"connection"`
	IsSocial   bool   `json:"isSocial"`
	Name       string `json:"name"`
	Provider   string `json:"provider"`
}

// NotificationOptOuts lists the notification subjects a user opted out of.
type NotificationOptOuts struct {
	SubjectsOptedOut []string `json:"subjectsOptedOut"`
}

// PictureInfo says how a user's picture may be changed.
type PictureInfo struct {
	CanEditPicture  bool `json:"canEditPicture"`
	IsActive        bool `json:"isActive"`
	IsPictureEdited bool `json:"isPictureEdited"`
	IsSSOBased      bool `json:"isSSOBased"`
}

// UserRole is a role held by a user, with the team it came from for team roles.
type UserRole struct {
	AccountID   string `json:"accountId"`
	Description string `json:"description"`
	ID          string `json:"id"`
	Name        string `json:"name"`
	Team        *Team  `json:"team,omitempty"`
}

// Team is a group of users, optionally nested under a parent team.
type Team struct {
	ID                   string              `json:"id"`
	AccountID            string              `json:"accountId"`
	Name                 string              `json:"name"`
	Description          string              `json:"description"`
	RichTextDescription  string              `json:"richTextDescription"`
	Avatar               string              `json:"avatar"`
	Color                string              `json:"color"`
	Picture              string              `json:"picture"`
	ParentID             string              `json:"parentId"`
	Manager              string              `json:"manager"`
	ManagerInfo          *User               `json:"managerInfo,omitempty"`
	Members              []string            `json:"members"`
	MembersInfo          []User              `json:"membersInfo,omitempty"`
	MovedExternalMembers []string            `json:"movedExternalMembers"`
	Mentions             map[string]any      `json:"mentions"`
	Badges               []Badge             `json:"badges"`
	Tags                 []TeamTag           `json:"tags"`
	ExternalTeamMapping  ExternalTeamMapping `json:"ExternalTeamMapping"`
	DynamicValueType     string              `json:"dynamicValueType"`
	CreatedByID          string              `json:"createdById"`
	ModifiedByID         string              `json:"modifiedById"`
	DateCreated          string              `json:"dateCreated"`
}

// TeamTag is the short tag form on teams.
type TeamTag struct {
	ID       string `json:"id"`
	IsActive bool   `json:"isActive"`
	Name     string `json:"name"`
	Title    string `json:"title"`
}

// ExternalTeamMapping links a team to an external directory.
type ExternalTeamMapping struct {
	ExternalID     string `json:"ExternalId"`
	ExternalSystem string `json:"ExternalSystem"`
}

// EmployeeTeam is a team in the employee view, with goal statistics.
type EmployeeTeam struct {
	Team
	DynamicMetricCount int                `json:"dynamicMetricCount"`
	ManualMetricCount  int                `json:"manualMetricCount"`
	MembersGoalCount   int                `json:"membersGoalCount"`
	TeamGoalCount      int                `json:"teamGoalCount"`
	ProgressSnapshots  []ProgressSnapshot `json:"progressSnapshots"`
}

// ProgressSnapshot is a team's attainment at one date.
type ProgressSnapshot struct {
	ID                           string             `json:"id"`
	Date                         string             `json:"date"`
	SessionID                    string             `json:"sessionId"`
	AvgAccountAttainment         float64            `json:"avgAccountAttainment"`
	AvgTeamAttainment            float64            `json:"avgTeamAttainment"`
	OverallSubTeamsAvgAttainment float64            `json:"overallSubTeamsAvgAttainment"`
	AssigneeAttainments          map[string]float64 `json:"assigneeAttainments"`
	SubTeamAttainments           map[string]float64 `json:"subTeamAttainments"`
}

// Employee is a user with badge, team-membership and managed-team information.
// Its id is the user id.
type Employee struct {
	ID             string         `json:"id"`
	FirstName      string         `json:"firstName"`
	LastName       string         `json:"lastName"`
	Email          string         `json:"email"`
	Picture        string         `json:"picture"`
	DateCreated    string         `json:"dateCreated"`
	IsActive       bool           `json:"isActive"`
	IsManager      bool           `json:"isManager"`
	ManagedTeamIDs []string       `json:"managedTeamIds"`
	TeamIDs        []string       `json:"teamIds"`
	Badges         []BadgeSummary `json:"badges"`
	Roles          []UserRole     `json:"roles"`
	Teams          []EmployeeTeam `json:"teams,omitempty"`
	ManagedTeams   []EmployeeTeam `json:"managedTeams,omitempty"`
}

// Role bundles allowed actions; users and teams hold roles.
type Role struct {
	ID          string `json:"id"`
	AccountID   string `json:"accountId"`
	Name        string `json:"name"`
	Description string `json:"description"`
	UserCount   int    `json:"userCount"`
	TeamID      string `json:"teamId,omitempty"`
	// MappingID is the id of the role mapping on mapping responses (what
	// DELETE /api/v1/roles/account/mapping/{id} takes).
	MappingID string `json:"mappingId,omitempty"`
	// BuiltIn is true for admin, member and viewer, which cannot be changed.
	BuiltIn bool `json:"builtIn"`
}

// Permission is a persistent grant of one action to principals (users or roles).
type Permission struct {
	ID         string   `json:"id"`
	AccountID  string   `json:"accountId"`
	Action     string   `json:"action"`
	Principals []string `json:"principals"`
}

// ActionDescriptor describes one protected action.
type ActionDescriptor struct {
	Description string `json:"description"`
	Name        string `json:"name"`
	Title       string `json:"title"`
}

// RoleMapping links a role to a team: the team's members hold the role (a
// "team role", shadowed in user listings unless includeShadowedRoles).
type RoleMapping struct {
	ID        string `json:"id"`
	AccountID string `json:"accountId"`
	RoleID    string `json:"roleId"`
	TeamID    string `json:"teamId"`
}

// RoleInput creates an account role.
type RoleInput struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// RolePatch changes an account role.
type RolePatch struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

// RoleMappingInput maps a role to a team.
type RoleMappingInput struct {
	RoleID string `json:"roleId"`
	TeamID string `json:"teamId"`
}

// PermissionInput creates a persistent grant.
type PermissionInput struct {
	Action     string   `json:"action"`
	Principals []string `json:"principals"`
}

// PrincipalPermissions are the actions a principal (user or role) holds.
type PrincipalPermissions struct {
	PrincipalID   string   `json:"principalId"`
	PrincipalKind string   `json:"principalKind"` // "user" or "role"
	Actions       []string `json:"actions"`
}

// PrincipalPermissionsInput replaces the granted actions of a principal.
type PrincipalPermissionsInput struct {
	Actions []string `json:"actions"`
}

// AllowedActions are the actions the current user may perform on one item.
type AllowedActions struct {
	CurrentUserActions []string `json:"currentUserActions"`
}

// EffectivePermissions are the account-level actions of the current user.
type EffectivePermissions struct {
	UserID  string   `json:"userId"`
	Roles   []string `json:"roles"`
	Actions []string `json:"actions"`
}

// AccountPatch is the account update: the fields that are set change.
type AccountPatch struct {
	AccountName *string `json:"accountName"`
	Domain      *string `json:"domain"`
	Language    *string `json:"language"`
	Settings    *string `json:"settings"`
}

// DomainCheck asks whether an account name and domain are free for a change.
type DomainCheck struct {
	AccountName string `json:"accountName"`
	Domain      string `json:"domain"`
}

// DomainAvailability answers a DomainCheck.
type DomainAvailability struct {
	AccountNameAvailable bool `json:"accountNameAvailable"`
	DomainAvailable      bool `json:"domainAvailable"`
}

// UserInput creates a user. RoleIDs name built-in or account roles; none
// means the built-in member role. Role (a built-in role name) is for
// in-process callers (bootstrap, seeds) and is not part of the REST body.
type UserInput struct {
	Email     string   `json:"email"`
	FirstName string   `json:"firstName"`
	LastName  string   `json:"lastName"`
	Language  string   `json:"language"` // default en
	RoleIDs   []string `json:"roleIds"`
	Role      string   `json:"-"`
}

// UserPatch changes a user; IsActive false deactivates it (its tokens stop
// working at once).
type UserPatch struct {
	FirstName *string   `json:"firstName"`
	LastName  *string   `json:"lastName"`
	Language  *string   `json:"language"`
	Picture   *string   `json:"picture"`
	IsActive  *bool     `json:"isActive"`
	RoleIDs   *[]string `json:"roleIds"`
}

// UserToken is a new API token, shown once.
type UserToken struct {
	Token string `json:"token"`
}

// LegacyUserQuery is the query of the deprecated user listing: a
// `property:value` full-text filter on email, name and roles.
type LegacyUserQuery struct {
	Email                []string // substrings, any matches
	Name                 []string
	Roles                []string // role ids, any matches
	Skip, Take           int
	IncludeShadowedRoles bool
}

// TeamInput creates a team.
type TeamInput struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Color       string   `json:"color"`
	Avatar      string   `json:"avatar"`
	ParentID    string   `json:"parentId"`
	Manager     string   `json:"manager"`
	Members     []string `json:"members"`
}

// TeamPatch changes a team.
type TeamPatch struct {
	Name        *string   `json:"name"`
	Description *string   `json:"description"`
	Color       *string   `json:"color"`
	Avatar      *string   `json:"avatar"`
	ParentID    *string   `json:"parentId"`
	Manager     *string   `json:"manager"`
	Members     *[]string `json:"members"`
}

// EmployeeInfo is the answer of the employee-by-id operation.
type EmployeeInfo struct {
	Info Employee `json:"info"`
}
