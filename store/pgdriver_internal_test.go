package store

import "testing"

// TestRebind: SQLite placeholders become PostgreSQL's with SQLite's
// numbering; quoted text, identifiers, comments and dollar-quoted bodies
// are left alone.
func TestRebind(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`UPDATE j SET a = ?1, b = ?2 WHERE c <= ?2 AND k IN (?, ?) LIMIT ?`, `UPDATE j SET a = $1, b = $2 WHERE c <= $2 AND k IN ($3, $4) LIMIT $5`},
		{`SELECT ?3, ?`, `SELECT $3, $4`},
		{`SELECT '?', "a?b", ? -- what?` + "\n" + `, ?`, `SELECT '?', "a?b", $1 -- what?` + "\n" + `, $2`},
		{`SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`},
		{`CREATE FUNCTION f() AS $$ SELECT '?' $$; SELECT ?`, `CREATE FUNCTION f() AS $$ SELECT '?' $$; SELECT $1`},
	} {
		if got := rebind(tt.in); got != tt.want {
			t.Errorf("rebind(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
