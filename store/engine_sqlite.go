package store

import (
	"context"
	"database/sql"
	"fmt"
)

// sqliteEngine is the default engine: one SQLite file in WAL mode.
type sqliteEngine struct{}

func (sqliteEngine) Name() string { return "sqlite" }

func (sqliteEngine) jsonArrayHas(col string) string {
	return "EXISTS (SELECT 1 FROM json_each(" + col + ") WHERE value = ?)"
}

func (sqliteEngine) jsonInt(col, field string) string {
	return "json_extract(" + col + ", '$." + field + "')"
}

func (sqliteEngine) strContains(hay string) string { return "instr(" + hay + ", ?) > 0" }

func (sqliteEngine) lockWrites(*sql.Tx) error { return nil }

func (sqliteEngine) noIndex(col string) string { return "+" + col }

func (sqliteEngine) skipLocked() string { return "" }

func (sqliteEngine) zeroBlob(n int) string { return fmt.Sprintf("zeroblob(%d)", n) }

func (sqliteEngine) schemaVersion(ctx context.Context, q rowQueryer) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// secureDelete zeroes the freed pages that held plaintext. It is per
// connection and SQLite applies it when the statement is prepared, not when
// it runs: so not through the statement cache, where a statement prepared
// once is only run later.
func (sqliteEngine) secureDelete(tx *sql.Tx, on bool) error {
	v := "OFF"
	if on {
		v = "ON"
	}
	_, err := tx.Exec(`PRAGMA secure_delete = ` + v)
	return err
}
