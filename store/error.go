package store

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// errUnique marks a UNIQUE or PRIMARY KEY violation; store methods turn it
// into the domain error that fits their table (e.g. a duplicate externalRef).
var errUnique = errors.New("unique constraint violated")

// formatError translates driver errors by SQLite result code, in this one
// place, so that callers can use errors.Is instead of matching messages.
func formatError(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return errors.Join(errUnique, err)
		}
	}
	return err
}
