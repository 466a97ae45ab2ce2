package store

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"kycd/seal"
)

func openInternal(t *testing.T) *Store {
	t.Helper()
	master := func(bool) (Sealer, error) { return seal.New(make([]byte, seal.KeySize)) }
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "kyc.db"), Options{MasterKey: master})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func count(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.reader.QueryRow(`SELECT count(*) FROM organizations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLostTransactionIsNotSuccess: when SQLite has dropped the whole
// transaction under a use case that then returns nil, InTx must not report
// success for writes that are gone.
func TestLostTransactionIsNotSuccess(t *testing.T) {
	s := openInternal(t)
	err := s.InTx(t.Context(), func(tx *Tx) error {
		if _, err := tx.CreateOrganization("gone", ""); err != nil {
			return err
		}
		_, _ = tx.tx.Exec("ROLLBACK") // what a disk-full error does to the transaction
		return nil
	})
	if err == nil {
		t.Fatal("InTx reported success for a rolled-back transaction")
	}
	if n := count(t, s); n != 0 {
		t.Fatalf("%d organizations", n)
	}
	// The commit loop goes on.
	if err := s.InTx(t.Context(), func(tx *Tx) error { _, err := tx.CreateOrganization("next", ""); return err }); err != nil {
		t.Fatalf("next transaction: %v", err)
	}
}

// TestGoexitInUseCase: runtime.Goexit (t.Fatal) in a use case ends the
// caller's goroutine, rolls back, and leaves the commit loop running.
func TestGoexitInUseCase(t *testing.T) {
	s := openInternal(t)
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = s.InTx(t.Context(), func(tx *Tx) error {
			if _, err := tx.CreateOrganization("exits", ""); err != nil {
				return err
			}
			runtime.Goexit()
			return nil
		})
		t.Error("InTx returned after the use case called Goexit")
	})
	wg.Wait()
	if err := s.InTx(t.Context(), func(tx *Tx) error { _, err := tx.CreateOrganization("after", ""); return err }); err != nil {
		t.Fatalf("after Goexit: %v", err)
	}
	if n := count(t, s); n != 1 {
		t.Fatalf("%d organizations, want only the one made after", n)
	}
}

// TestConcurrentFirstOpen: serve and a CLI command opening a new file at
// the same moment must both succeed (one migrates, the other sees it done).
func TestConcurrentFirstOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kyc.db")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := Open(t.Context(), path, Options{CheckpointEvery: -1})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
}
