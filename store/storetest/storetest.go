// Package storetest opens real databases for tests, migrated and closed
// when the test ends: a fresh SQLite file in the test's temporary
// directory, or a fresh schema in the PostgreSQL database that
// KYCD_TEST_POSTGRES names (see Engines).
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver for schema set-up

	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
)

// Open returns a migrated store, encrypted at rest under MasterKey, on the
// engine KYCD_TEST_ENGINE names: a new SQLite file in t.TempDir() by
// default, a new PostgreSQL schema with KYCD_TEST_ENGINE=postgres.
func Open(t testing.TB) *store.Store {
	t.Helper()
	return OpenOn(t, DefaultEngine())
}

// DefaultEngine is the engine Open uses: KYCD_TEST_ENGINE, or "sqlite".
func DefaultEngine() string {
	if e := os.Getenv("KYCD_TEST_ENGINE"); e != "" {
		return e
	}
	return "sqlite"
}

// Engines lists the engines tests that run on both iterate over.
var Engines = []string{"sqlite", "postgres"}

// OpenOn returns a migrated, encrypted store on engine: "sqlite" or
// "postgres". PostgreSQL tests skip with a message when KYCD_TEST_POSTGRES
// is unset, except under CI=true, where they fail.
func OpenOn(t testing.TB, engine string) *store.Store {
	t.Helper()
	db := DB(t, engine)
	s, err := store.Open(t.Context(), db, store.Options{MasterKey: MasterKey})
	if err == nil {
		opened.Store(s, db)
	}
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}

// opened maps the stores Open made to their --db value: a PostgreSQL
// store's Path hides the password.
var opened sync.Map // *store.Store → string

// Reopen returns the --db value of a store Open made, to open a second
// handle on its database (as the CLI does while serve runs).
func Reopen(s *store.Store) string {
	if v, ok := opened.Load(s); ok {
		return v.(string)
	}
	return s.Path()
}

// SQL opens a plain database/sql handle on the database of a store Open
// made, outside the store, as anyone with access to it could: for tests
// that look at rows directly. Queries take SQLite's placeholders on both
// engines (store.OpenSQL).
func SQL(t testing.TB, s *store.Store) *sql.DB {
	t.Helper()
	db, err := store.OpenSQL(Reopen(s))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// DB returns a fresh, empty database for engine, as a --db value: a file
// path in t.TempDir(), or the URL of a new schema (dropped when the test
// ends) in the database KYCD_TEST_POSTGRES names.
func DB(t testing.TB, engine string) string {
	t.Helper()
	switch engine {
	case "sqlite":
		return filepath.Join(t.TempDir(), "kyc.db")
	case "postgres":
		return PostgresSchema(t)
	}
	t.Fatalf("storetest: unknown engine %q", engine)
	return ""
}

// PostgresSchema creates a new schema in the KYCD_TEST_POSTGRES database
// and returns a URL whose search_path is that schema, so that a store
// opened on it is as fresh as a new SQLite file.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv("KYCD_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("KYCD_TEST_POSTGRES is not set: under CI=true the PostgreSQL tests must run (.ci/run sets it)")
		}
		t.Skip("PostgreSQL tests skipped: set KYCD_TEST_POSTGRES=postgres://user:pass@host/db (see docs/development.md, \"Tests on PostgreSQL\")")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("KYCD_TEST_POSTGRES: %v", err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			t.Error(err)
			return
		}
		defer db.Close()
		if _, err := db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop test schema: %v", err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// MasterKey is the master key of the databases Open makes: a fixed key,
// public in this source, so for tests only. It fits store.Options.MasterKey.
func MasterKey(bool) (store.Sealer, error) {
	return seal.New(bytes.Repeat([]byte("storetest"), 4)[:seal.KeySize])
}

// Org is an organization with one key per environment, for tests.
type Org struct {
	ID         string
	SandboxKey string
	LiveKey    string
	SandboxID  string
	LiveID     string
}

// MustOrg creates an organization with a sandbox and a live key (live on
// the pro tier). rpm, when not nil, overrides both keys' limits.
func MustOrg(t testing.TB, s *store.Store, name string, rpm *int) Org {
	t.Helper()
	var o Org
	err := s.InTx(t.Context(), func(tx *store.Tx) error {
		org, err := tx.CreateOrganization(name, "compliance@"+name+".example")
		if err != nil {
			return err
		}
		o.ID = org.ID
		sk, stoken, err := tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: org.ID, Environment: kyc.Sandbox, RPMOverride: rpm, Name: "test"})
		if err != nil {
			return err
		}
		lk, ltoken, err := tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: org.ID, Environment: kyc.Live, Tier: kyc.TierPro, RPMOverride: rpm, Name: "test"})
		if err != nil {
			return err
		}
		o.SandboxKey, o.LiveKey, o.SandboxID, o.LiveID = stoken, ltoken, sk.ID, lk.ID
		return nil
	})
	if err != nil {
		t.Fatalf("create org: %v", err)
	}
	return o
}

// Clock is a settable clock for tests, safe for concurrent use. Its zero
// value starts at 2026-01-02T03:04:05Z.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.IsZero() {
		c.t = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.Now()
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
