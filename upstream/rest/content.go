package rest

// contentTable holds the rest of the contract: tags, badges, dashboards, KPI
// groups, lists and announcements.
func contentTable() []entry {
	return nil
}
