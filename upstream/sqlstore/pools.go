package sqlstore

import "database/sql"

// Pools returns the store's connection pools by name ("read", "write"), so
// that their statistics (database/sql.DBStats) can be exported as metrics.
func (s *Store) Pools() map[string]*sql.DB {
	return map[string]*sql.DB{"read": s.r, "write": s.w}
}
