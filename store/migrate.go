package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// migrations are numbered SQL files applied in order, each in its own
// transaction. PRAGMA user_version records how many are applied, so a file
// written by a newer kycd (more migrations than this binary knows) is
// refused instead of being half-understood.
//
// PostgreSQL's migrations (migrations/postgres) carry the same numbers;
// the first of them may start past 1 (a baseline: see its comment).
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

const (
	sqliteMigrationDir = "migrations"
	pgMigrationDir     = "migrations/postgres"
)

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations(dir string) ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number and _", e.Name())
		}
		b, err := migrationFS.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	if len(ms) == 0 {
		return nil, fmt.Errorf("no migrations in %s", dir)
	}
	first := 1
	if dir == pgMigrationDir {
		first = ms[0].version
	}
	for i, m := range ms {
		if m.version != first+i {
			return nil, fmt.Errorf("migration %s/%s: expected number %04d", dir, m.name, first+i)
		}
	}
	return ms, nil
}

// SchemaVersion is the number of migrations this binary knows.
// Both engines' migrations end at the same number.
func SchemaVersion() int {
	ms, err := loadMigrations(sqliteMigrationDir)
	if err != nil {
		panic(err) // embedded files: a broken build, caught by every test
	}
	pg, err := loadMigrations(pgMigrationDir)
	if err != nil {
		panic(err)
	}
	if v := pg[len(pg)-1].version; v != len(ms) {
		panic(fmt.Sprintf("store: SQLite migrations end at %d, PostgreSQL's at %d: write each migration for both engines", len(ms), v))
	}
	return len(ms)
}

func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations(sqliteMigrationDir)
	if err != nil {
		return err
	}
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open database %s: %w", s.path, err)
	}
	defer conn.Close()
	var current int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("open database %s: %w", s.path, err)
	}
	if current > len(ms) {
		return fmt.Errorf("database %s has schema version %d but this kycd knows only up to %d: it was written by a newer kycd; upgrade kycd (never downgrade a database)", s.path, current, len(ms))
	}
	for _, m := range ms[current:] {
		tx, err := conn.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one migrator at a time
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		// Another process (serve and a CLI command started together) may
		// have applied it while we waited for the lock.
		var now int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&now); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if now >= m.version {
			_ = tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		// user_version is not a parameterisable pragma; the value is ours.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}
