package sqlstore

import "database/sql"

// Pools returns the store's connection pools by name ("read", "write"), so
// that their statistics (database/sql.DBStats) can be exported as metrics.
func (s *Store) Pools() map[string]*sql.DB {
	return map[string]*sql.DB{"read": s.r, "write": s.w}
}

// DatabaseConns is the most connections the store opens to PostgreSQL
// (its pool's size), or 0 on SQLite, whose writes do not wait on a
// remote server.
func (s *Store) DatabaseConns() int {
	if s.pg == nil {
		return 0
	}
	return int(s.pg.pool.Config().MaxConns)
}
