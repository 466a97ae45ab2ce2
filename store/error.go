package store

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"kycd/kyc"
)

// errUnique marks a UNIQUE or PRIMARY KEY violation; store methods turn it
// into the domain error that fits their table (e.g. a duplicate externalRef).
var errUnique = errors.New("unique constraint violated")

// ErrStorage marks a failure of the disk under the database: SQLite said
// the disk is full (SQLITE_FULL) or an I/O call failed (SQLITE_IOERR).
// Such errors are SERVICE_UNAVAILABLE (503): nothing is wrong with the
// request, it may succeed once there is room again. Errors.Is finds it.
var ErrStorage = errors.New("store: the database file cannot be written: disk full or I/O error")

// formatError translates driver errors by SQLite result code or
// PostgreSQL SQLSTATE, in this one place, so that callers can use errors.Is
// instead of matching messages.
func formatError(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return errors.Join(errUnique, err)
		case "53100", "58030": // disk_full, io_error
			return storageError(err)
		}
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return errors.Join(errUnique, err)
		}
		// Extended codes keep the primary code in their low byte
		// (SQLITE_IOERR_WRITE is SQLITE_IOERR | 3<<8, …).
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR:
			return storageError(err)
		}
	}
	return err
}

func storageError(err error) error {
	if errors.Is(err, ErrStorage) {
		return err
	}
	return &kyc.Error{Code: kyc.EUnavailable, Err: fmt.Errorf("%w: %w", ErrStorage, err),
		Message: "The service cannot store data right now (its disk is full or failing). Retry later."}
}

// isUndefinedTable reports PostgreSQL's undefined_table (42P01).
func isUndefinedTable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42P01"
}
