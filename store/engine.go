package store

import (
	"context"
	"database/sql"
	"strings"
)

// engine is what differs between the two databases the store runs on,
// SQLite (the default: one file, one machine) and PostgreSQL (a fleet of
// kycd instances on one database). The rest of the store writes one SQL
// text where the two agree — most of it, since both take SQLite's
// placeholders (pgdriver.go) and the PostgreSQL schema keeps SQLite's
// column types — and asks the engine for the few fragments where they do
// not. How each engine commits (group commit on SQLite, plain transactions
// on PostgreSQL) is in tx.go and engine_postgres.go; error codes in
// error.go.
type engine interface {
	// Name is "sqlite" or "postgres".
	Name() string
	// jsonArrayHas is a condition: the JSON array of strings in column col
	// holds the value of the next ? parameter.
	jsonArrayHas(col string) string
	// jsonInt is the integer field of the JSON object in column col (a
	// BLOB or bytea holding UTF-8 JSON).
	jsonInt(col, field string) string
	// zeroBlob is an expression for n zero bytes.
	zeroBlob(n int) string
	// strContains is a condition: the text expression hay contains the
	// value of the next ? parameter (no LIKE, so _ and % are plain).
	strContains(hay string) string
	// noIndex is column col in a form the planner will not use an index
	// for (SQLite's unary +, for an ORDER BY that should sort the few rows
	// found rather than walk an index); PostgreSQL plans by statistics and
	// has no + on text.
	noIndex(col string) string
	// skipLocked ends a SELECT that picks rows to update: rows another
	// transaction has locked are passed over (PostgreSQL's FOR UPDATE SKIP
	// LOCKED; nothing on SQLite, which has one writer).
	skipLocked() string
	// lockWrites makes a write transaction wait for, then hold until it
	// ends, the right to write: nothing on SQLite, whose BEGIN IMMEDIATE
	// already did; the fleet-wide advisory lock on PostgreSQL.
	lockWrites(tx *sql.Tx) error
	// schemaVersion reads how many migrations the database has.
	schemaVersion(ctx context.Context, q rowQueryer) (int, error)
	// secureDelete asks the engine to overwrite what the transaction
	// deletes (SQLite's secure_delete); PostgreSQL has no such switch.
	secureDelete(tx *sql.Tx, on bool) error
}

// rowQueryer is what *sql.DB, *sql.Conn and *sql.Tx all offer.
type rowQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// IsPostgres reports whether a --db value names a PostgreSQL database
// (a postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// Engine names the database engine under the store: "sqlite" or
// "postgres".
func (s *Store) Engine() string { return s.eng.Name() }
