package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"testing"
)

// released is each release's schema: the number of migrations it runs and
// the SHA-256 over those migration files of both engines (each name, a
// NUL, its SQL, a NUL; SQLite's then PostgreSQL's, in order). A released
// migration is never edited: databases already past it would never see
// the change. Add a row per release (CHANGELOG.md names the schema).
var released = []struct {
	version string
	schema  int
	sha256  string
}{
	{"0.1.0", 24, "37e2f6c1cfdf934897f176424c752e39f8e691a88eca6d4d19cdd5b648b8ea1e"},
}

func migrationsDigest(t *testing.T, schema int) string {
	t.Helper()
	h := sha256.New()
	for _, dir := range []string{sqliteMigrationDir, pgMigrationDir} {
		ms, err := loadMigrations(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.version > schema {
				break
			}
			h.Write([]byte(m.name + "\x00" + m.sql + "\x00"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestReleasedMigrationsUnchanged: the migrations each release ran are
// still there, byte for byte, and still first.
func TestReleasedMigrationsUnchanged(t *testing.T) {
	for _, r := range released {
		if r.schema > SchemaVersion() {
			t.Errorf("release %s ran %d migrations; this tree has only %d", r.version, r.schema, SchemaVersion())
			continue
		}
		if got := migrationsDigest(t, r.schema); got != r.sha256 {
			t.Errorf("release %s: the SHA-256 of its migrations 1–%d is %s, want %s: a released migration was edited; write a new one instead",
				r.version, r.schema, got, r.sha256)
		}
	}
}

// TestUpgradeFromReleases: a database left by each earlier release's
// schema, by the schema just before this one (a build between releases)
// and by the first opens with this binary and is migrated forward to the
// current schema. (Every schema from 1 passes too, at ~15 s: too slow to
// run each time.) That a newer database is refused is TestMigrations's
// (store_test.go).
func TestUpgradeFromReleases(t *testing.T) {
	ms, err := loadMigrations(sqliteMigrationDir)
	if err != nil {
		t.Fatal(err)
	}
	from := map[int]bool{1: true, len(ms) - 1: true}
	for _, r := range released {
		if r.schema < len(ms) {
			from[r.schema] = true
		}
	}
	for k := 1; k < len(ms); k++ {
		if !from[k] {
			continue
		}
		t.Run("schema"+strconv.Itoa(k), func(t *testing.T) {
			// openBefore applies ms[:k]: the file a kycd of schema k left.
			path, db := openBefore(t, ms[k].name)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			s, err := Open(t.Context(), path, Options{CheckpointEvery: -1})
			if err != nil {
				t.Fatalf("open a schema %d database: %v", k, err)
			}
			defer s.Close()
			if v, err := s.AppliedSchemaVersion(t.Context()); err != nil || v != len(ms) {
				t.Errorf("schema %d database after Open: version %d, %v; want %d", k, v, err, len(ms))
			}
		})
	}
}
