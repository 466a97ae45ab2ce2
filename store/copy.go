package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"strings"
)

// TableCopy is what CopyToPostgres copied of one table, and the digest
// both sides agreed on.
type TableCopy struct {
	Table  string
	Rows   int64
	SHA256 string // of every row, in the order of all columns, values typed
}

// CopyToPostgres copies every row of a SQLite store into an empty
// PostgreSQL store at the same schema version (kycd migrate). It runs in
// one PostgreSQL transaction and commits only after each table's row
// count and digest, read back from PostgreSQL inside that transaction,
// equal the SQLite side's: a failed or partial copy leaves the target
// empty. Rows are copied as stored — sealed data stays sealed under the
// same data keys, audit rows keep their hashes — so the master key and
// the audit chain carry over unchanged.
func CopyToPostgres(ctx context.Context, src, dst *Store) ([]TableCopy, error) {
	if src.eng.Name() != "sqlite" || dst.eng.Name() != "postgres" {
		return nil, errors.New("store: copy goes from a SQLite store to a PostgreSQL store")
	}
	sv, err := src.AppliedSchemaVersion(ctx)
	if err != nil {
		return nil, err
	}
	dv, err := dst.AppliedSchemaVersion(ctx)
	if err != nil {
		return nil, err
	}
	if sv != dv {
		return nil, fmt.Errorf("store: the SQLite file is at schema version %d and PostgreSQL at %d: open the file with this kycd first (kycd serve migrates it)", sv, dv)
	}
	tables, err := copyTables(ctx, src)
	if err != nil {
		return nil, err
	}
	// A read transaction on SQLite: one consistent snapshot even if a
	// kycd serve still writes to the file.
	rtx, err := src.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer rtx.Rollback()
	wtx, err := dst.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer wtx.Rollback()
	if _, err := wtx.ExecContext(ctx, `SET CONSTRAINTS ALL DEFERRED`); err != nil {
		return nil, err
	}
	// Rows from before the audit chain (migration 0007) carry no hashes;
	// the insert trigger that requires them is for new rows.
	if _, err := wtx.ExecContext(ctx, `ALTER TABLE audit_log DISABLE TRIGGER audit_log_chained`); err != nil {
		return nil, err
	}
	var out []TableCopy
	for _, t := range tables {
		var n int
		if err := wtx.QueryRowContext(ctx, `SELECT count(*) FROM `+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("target table %s: %w", t, err)
		}
		if n > 0 && t != "audit_head" {
			return nil, fmt.Errorf("the PostgreSQL database is not empty (table %s has %d rows): kycd migrate copies into a new database only", t, n)
		}
		c, err := copyTable(ctx, rtx, wtx, t)
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", t, err)
		}
		out = append(out, c)
	}
	if _, err := wtx.ExecContext(ctx, `ALTER TABLE audit_log ENABLE TRIGGER audit_log_chained`); err != nil {
		return nil, err
	}
	keys, err := copySubjectKeys(ctx, src, wtx)
	if err != nil {
		return nil, err
	}
	out = append(out, keys)
	// Identity columns continue after the copied ids.
	for _, t := range []string{"jobs", "email_outbox", "webhook_attempts"} {
		if _, err := wtx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('`+t+`', 'id'), coalesce(max(id), 0) + 1, false) FROM `+t); err != nil {
			return nil, fmt.Errorf("sequence of %s: %w", t, err)
		}
	}
	if _, err := wtx.ExecContext(ctx, `SET CONSTRAINTS ALL IMMEDIATE`); err != nil {
		return nil, fmt.Errorf("foreign keys after the copy: %w", err)
	}
	for _, c := range out {
		n, sum, err := digestTable(ctx, wtx, c.Table)
		if err != nil {
			return nil, fmt.Errorf("verify %s: %w", c.Table, err)
		}
		if n != c.Rows || sum != c.SHA256 {
			return nil, fmt.Errorf("verify %s: PostgreSQL holds %d rows with digest %s, the SQLite file %d rows with digest %s; nothing was committed",
				c.Table, n, sum, c.Rows, c.SHA256)
		}
	}
	if err := wtx.Commit(); err != nil {
		return nil, fmt.Errorf("commit the copy: %w", formatError(err))
	}
	return out, nil
}

// copyTables lists the SQLite store's tables in name order.
func copyTables(ctx context.Context, src *Store) ([]string, error) {
	rows, err := src.reader.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ts []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, rows.Err()
}

// copyTable inserts every row of table t, hashing them as it goes.
func copyTable(ctx context.Context, rtx, wtx *sql.Tx, t string) (TableCopy, error) {
	c := TableCopy{Table: t}
	rows, err := rtx.QueryContext(ctx, `SELECT * FROM "`+t+`" ORDER BY `+orderAll(rows0(ctx, rtx, t)))
	if err != nil {
		return c, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return c, err
	}
	insert := `INSERT INTO ` + t + ` (` + strings.Join(cols, ", ") + `) VALUES (?` + strings.Repeat(", ?", len(cols)-1) + `)`
	if t == "audit_head" { // the migration made its one row; the copy replaces it
		set := make([]string, len(cols))
		for i, col := range cols {
			set[i] = col + " = excluded." + col
		}
		insert += ` ON CONFLICT (id) DO UPDATE SET ` + strings.Join(set, ", ")
	}
	h := sha256.New()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return c, err
		}
		if _, err := wtx.ExecContext(ctx, insert, vals...); err != nil {
			return c, formatError(err)
		}
		hashRow(h, vals)
		c.Rows++
	}
	if err := rows.Err(); err != nil {
		return c, err
	}
	c.SHA256 = hex.EncodeToString(h.Sum(nil))
	return c, nil
}

// rows0 counts the columns of table t (for ORDER BY 1, 2, …, n).
func rows0(ctx context.Context, q *sql.Tx, t string) int {
	rows, err := q.QueryContext(ctx, `SELECT * FROM "`+t+`" LIMIT 0`)
	if err != nil {
		return 1
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	return max(1, len(cols))
}

// orderAll orders by every column: the same total order on both engines
// (byte order for text and blobs, as COLLATE "C" on PostgreSQL).
func orderAll(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprint(i + 1)
	}
	return strings.Join(parts, ", ")
}

// digestTable reads table t back from PostgreSQL in the same order and
// hashes it as copyTable did.
func digestTable(ctx context.Context, tx *sql.Tx, t string) (int64, string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT * FROM `+t+` ORDER BY `+orderAll(rows0(ctx, tx, t)))
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, "", err
	}
	h := sha256.New()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, "", err
		}
		hashRow(h, vals)
		n++
	}
	return n, hex.EncodeToString(h.Sum(nil)), rows.Err()
}

// hashRow feeds one row to h, each value with its type and length, so
// that a NULL, an empty string and an empty blob all differ, and 1 (an
// integer) differs from "1" (text).
func hashRow(h hash.Hash, vals []any) {
	var b [9]byte
	for _, v := range vals {
		switch v := v.(type) {
		case nil:
			h.Write([]byte{0})
		case int64:
			b[0] = 1
			binary.BigEndian.PutUint64(b[1:], uint64(v))
			h.Write(b[:])
		case float64:
			b[0] = 2
			binary.BigEndian.PutUint64(b[1:], math.Float64bits(v))
			h.Write(b[:])
		case string:
			b[0] = 3
			binary.BigEndian.PutUint64(b[1:], uint64(len(v)))
			h.Write(b[:])
			h.Write([]byte(v))
		case []byte:
			b[0] = 4
			binary.BigEndian.PutUint64(b[1:], uint64(len(v)))
			h.Write(b[:])
			h.Write(v)
		default:
			fmt.Fprintf(h, "\x05%T:%v", v, v) // not expected: both drivers give the five types above
		}
	}
	h.Write([]byte{0xff})
}

// copySubjectKeys copies the per-applicant secrets from the SQLite key
// store (<db>.keys, beside the file) into PostgreSQL's subject_keys table:
// without them the copied images and document details would not open.
func copySubjectKeys(ctx context.Context, src *Store, wtx *sql.Tx) (TableCopy, error) {
	c := TableCopy{Table: "subject_keys"}
	if src.keys == nil || src.keys.subjects == nil {
		return c, errors.New("store: copy needs the source opened with its master key (the per-applicant key store)")
	}
	rows, err := src.keys.subjects.db.QueryContext(ctx, `SELECT applicant_id, secret, created_at FROM subject_keys ORDER BY applicant_id`)
	if err != nil {
		return c, fmt.Errorf("read the key store: %w", err)
	}
	defer rows.Close()
	h := sha256.New()
	for rows.Next() {
		var id, created string
		var secret []byte
		if err := rows.Scan(&id, &secret, &created); err != nil {
			return c, fmt.Errorf("read the key store: %w", err)
		}
		if _, err := wtx.ExecContext(ctx, `INSERT INTO subject_keys (applicant_id, secret, created_at) VALUES (?, ?, ?)`, id, secret, created); err != nil {
			return c, fmt.Errorf("copy subject key: %w", err)
		}
		hashRow(h, []any{id, secret, created})
		c.Rows++
	}
	if err := rows.Err(); err != nil {
		return c, err
	}
	c.SHA256 = hex.EncodeToString(h.Sum(nil))
	return c, nil
}
