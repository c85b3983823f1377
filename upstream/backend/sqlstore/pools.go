package sqlstore

import "database/sql"

// Pools returns the store's connection pools by name ("read", "write"), so
// that their statistics (database/sql.DBStats) can be exported as metrics.
func (s *Store) Pools() map[string]*sql.DB {
	return map[string]*sql.DB{"read": s.r, "write": s.w}
}

// MinWritesInFlight is the fewest writes a server should let execute at
// once, whatever its adaptive limit makes of their times. On PostgreSQL it
// is the pool's size: fewer leave connections idle while writes queue. On
// SQLite it is localGroupWrites: a write executing waits for the one
// writer in its account's queue, where the writes waiting together are
// committed in one transaction that recomputes their check-ins' paths once
// (grouplocal.go); held back in the server's admission queue instead, each
// would pay for a transaction of its own.
func (s *Store) MinWritesInFlight() int {
	if s.pg == nil {
		return localGroupWrites
	}
	return int(s.pg.pool.Config().MaxConns)
}

// localGroupWrites is MinWritesInFlight on SQLite: 8 clients checking in
// under one objective of a 300-objective tree answered 2.0× the check-ins
// of a server that let two execute at once (docs/benchmarks/writes.md).
const localGroupWrites = 16
