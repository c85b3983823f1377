package upstream

// IsEntity marks the resource types that the GraphQL API serves as
// federation entities (Apollo Federation's _Entity union, keyed by id):
// gqlgen's federation runtime holds the answer of _entities as values of
// an interface with this method (fedruntime.Entity). It does nothing.
func (Goal) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Metric) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Task) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (CheckIn) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Session) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Team) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (User) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Tag) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (TagDetail) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Dashboard) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (DashboardParameter) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (List) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Announcement) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Badge) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (AssignedBadge) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (KPIGroup) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (KPI) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Account) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (UserRole) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Employee) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Role) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Permission) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Token) IsEntity() {}

// IsEntity marks an entity of the GraphQL federation (see Goal.IsEntity).
func (Comment) IsEntity() {}
