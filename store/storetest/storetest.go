// Package storetest opens real SQLite databases for tests: a fresh file in
// the test's temporary directory, migrated, closed when the test ends.
package storetest

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
)

// Open returns a migrated store on a new file in t.TempDir(), encrypted
// at rest under MasterKey.
func Open(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "kyc.db"), store.Options{MasterKey: MasterKey})
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
