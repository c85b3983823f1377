package upstream

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// Failures of the infrastructure: the database (or a gateway's upstream)
// went away, is too slow, or is full. None is the caller's fault and none
// is an internal error of the server: each has a code of its own, a status
// that is not 500 and, where retrying helps, a Retry-After (CodeInfo).
// Classify is the one place that tells them apart; the REST facade, GraphQL
// (HTTP, websocket, SSE) and the gateway's client all answer through it.
const (
	// CodeDatabaseUnavailable: the database cannot be reached or refuses
	// work (connection refused or reset, shutting down or starting up,
	// too many connections, a busy SQLite file). Retrying soon may work.
	CodeDatabaseUnavailable Code = "unavailable"
	// CodeStorageFull: the database has no space left for the write
	// (SQLite's SQLITE_FULL, PostgreSQL's disk_full). Reads still work;
	// writes work again once an operator frees space.
	CodeStorageFull Code = "storage_full"
	// CodeOutcomeUnknown: the connection to the database broke while a
	// write was committing, so whether it was saved is unknown. A retry
	// with the same Idempotency-Key answers the saved result or applies
	// the write once (idempotency.go).
	CodeOutcomeUnknown Code = "outcome_unknown"
)

// Client-safe messages of the infrastructure failures.
const (
	msgDatabaseUnavailable = "the database is unavailable; retry in a moment"
	msgDatabaseTimeout     = "the database did not answer in time; retry in a moment"
	msgStorageFull         = "the database has no space left for this write; reads still work, and writes will once space is freed"
	msgOutcomeUnknown      = "the connection to the database broke while this write was committing, so it may or may not have been saved; " +
		"retry it with the same Idempotency-Key (it is applied at most once: 409 idempotency_key_in_use says it was), or read before writing again"
	msgContention = "the database kept aborting this write for concurrent ones; retry in a moment"
)

// OutcomeUnknown returns err, a failure of a write's COMMIT after it may
// have reached the database, as CodeOutcomeUnknown. Only a store knows
// where its commit is; it calls this there.
func OutcomeUnknown(err error) *Error {
	return &Error{Code: CodeOutcomeUnknown, Message: msgOutcomeUnknown, Err: err}
}

// Infrastructure reports whether c is a failure of the infrastructure
// rather than of the request or of the server's code: the database or the
// gateway's upstream unavailable, too slow, or full, or a write whose
// outcome a broken connection left unknown (the 503 and 507 rows of the
// error table). A response whose every error is one of these tells the
// client to come back, not to change its request. The server's own
// refusals under load (overloaded, server_busy) are 503 too, but they are
// the server shedding load, not its infrastructure failing.
func (c Code) Infrastructure() bool {
	if c == CodeOverloaded || c == CodeServerBusy {
		return false
	}
	s := c.Status()
	return s == http.StatusServiceUnavailable || s == http.StatusInsufficientStorage
}

// Classify returns err as an *Error: the first *Error of its chain, or, for
// a failure of the infrastructure, one with its code (CodeDatabaseUnavailable,
// CodeTimeout, CodeStorageFull) wrapping err, or nil for any other error
// (an internal one). It reads the drivers' errors through the methods they
// export (SQLState of PostgreSQL's, Code of SQLite's), so that the rules
// are here and no driver is imported.
func Classify(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if c, msg := infraCode(err); c != "" {
		return &Error{Code: c, Message: msg, Err: err}
	}
	return nil
}

// The drivers' errors, by the methods they export.
type (
	// pgError is PostgreSQL's (pgconn.PgError).
	pgError interface {
		error
		SQLState() string
	}
	// sqliteError is SQLite's (modernc.org/sqlite.Error): a result code.
	sqliteError interface {
		error
		Code() int
	}
	// pgConnError is a failure of pgx's connection itself: it says
	// whether it happened before anything was sent (pgconn.SafeToRetry).
	pgConnError interface {
		error
		SafeToRetry() bool
	}
)

// infraCode is the code and message of an infrastructure failure, "" for
// another error.
func infraCode(err error) (Code, string) {
	if s, ok := errors.AsType[pgError](err); ok {
		if c, msg := sqlStateCode(s.SQLState()); c != "" {
			return c, msg
		}
	}
	if s, ok := errors.AsType[sqliteError](err); ok {
		// SQLite's result codes; the primary code is the low byte of an
		// extended one.
		switch s.Code() & 0xff {
		case 13: // SQLITE_FULL
			return CodeStorageFull, msgStorageFull
		case 5, 6, 10: // SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR
			return CodeDatabaseUnavailable, msgDatabaseUnavailable
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout, msgDatabaseTimeout
	case errors.Is(err, syscall.ENOSPC):
		return CodeStorageFull, msgStorageFull
	case isConnectionFailure(err):
		return CodeDatabaseUnavailable, msgDatabaseUnavailable
	}
	return "", ""
}

// sqlStateCode classifies a PostgreSQL SQLSTATE.
func sqlStateCode(state string) (Code, string) {
	switch {
	case state == "53100": // disk_full
		return CodeStorageFull, msgStorageFull
	case state == "57014", state == "55P03": // query_canceled (statement_timeout, a deadline), lock_not_available
		return CodeTimeout, msgDatabaseTimeout
	case state == "40001", state == "40P01": // serialization_failure, deadlock_detected: after the store's retries
		return CodeDatabaseUnavailable, msgContention
	case strings.HasPrefix(state, "08"), // connection_exception
		strings.HasPrefix(state, "57P"),    // admin_shutdown, crash_shutdown, cannot_connect_now, database_dropped
		state == "53300",                   // too_many_connections
		state == "53200",                   // out_of_memory
		state == "25P03",                   // idle_in_transaction_session_timeout
		state == "58000", state == "58030": // system_error, io_error
		return CodeDatabaseUnavailable, msgDatabaseUnavailable
	}
	return "", ""
}

// isConnectionFailure reports whether err says the connection to the
// database failed or was lost, rather than that a statement failed.
func isConnectionFailure(err error) bool {
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	if _, ok := errors.AsType[pgConnError](err); ok {
		return true // pgconn's errors of the connection itself
	}
	// A connection the server closed mid-message ends in an unexpected
	// EOF.
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ETIMEDOUT)
}
