package store_test

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

var update = flag.Bool("update", false, "rewrite schema.sql from the migrations")

// TestSchema keeps schema.sql, the readable full schema, equal to what the
// migrations produce.
func TestSchema(t *testing.T) {
	s := storetest.OpenOn(t, "sqlite") // reads the SQLite file directly
	db, err := sql.Open("sqlite", "file:"+s.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type DESC, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	b.WriteString("-- The current schema, generated from migrations/ by `go test ./store -run TestSchema -update`.\n-- Read it; change the schema with a new numbered migration.\n")
	fmt.Fprintf(&b, "-- PRAGMA user_version = %d\n\n", store.SchemaVersion())
	for rows.Next() {
		var stmt string
		if err := rows.Scan(&stmt); err != nil {
			t.Fatal(err)
		}
		b.WriteString(stmt + ";\n\n")
	}
	if *update {
		if err := os.WriteFile("schema.sql", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Errorf("schema.sql is out of date with migrations/; run go test ./store -run TestSchema -update\ngot:\n%s", b.String())
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kyc.db")
	s, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", store.SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = store.Open(t.Context(), path, store.Options{})
	if err == nil || !strings.Contains(err.Error(), "newer kycd") {
		t.Fatalf("Open = %v, want an error about a newer kycd", err)
	}
	// Opening twice (a restart) applies nothing again.
	path2 := filepath.Join(t.TempDir(), "again.db")
	for range 2 {
		s, err := store.Open(t.Context(), path2, store.Options{})
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		s.Close()
	}
}

func TestWALMode(t *testing.T) {
	s := storetest.OpenOn(t, "sqlite") // reads the SQLite file directly
	db, err := sql.Open("sqlite", "file:"+s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v", mode, err)
	}
}

// TestGroupCommitIsolation runs many use cases at once, some failing and
// some panicking: each one's writes are kept or dropped on its own.
func TestGroupCommitIsolation(t *testing.T) {
	s := storetest.Open(t)
	org := storetest.MustOrg(t, s, "acme", nil)
	errBoom := errors.New("boom")
	const n = 300
	var wg sync.WaitGroup
	outcomes := make([]error, n)
	for i := range n {
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					outcomes[i] = fmt.Errorf("panic: %v", p)
				}
			}()
			outcomes[i] = s.InTx(t.Context(), func(tx *store.Tx) error {
				first, last := fmt.Sprint("n", i), "x"
				ref := fmt.Sprint("ref", i)
				if _, err := tx.CreateApplicant(org.ID, kyc.Sandbox, &kyc.ApplicantInput{FirstName: &first, LastName: &last, ExternalRef: &ref}); err != nil {
					return err
				}
				switch i % 3 {
				case 1:
					return errBoom // after a write: it must be undone
				case 2:
					if i%2 == 0 {
						panic("use case panicked")
					}
					// A constraint error inside a batch leaves the others alone.
					_, err := tx.CreateApplicant(org.ID, kyc.Sandbox, &kyc.ApplicantInput{FirstName: &first, LastName: &last, ExternalRef: &ref})
					return err
				}
				return nil
			})
		})
	}
	wg.Wait()
	want := 0
	for i, err := range outcomes {
		switch {
		case i%3 == 0:
			want++
			if err != nil {
				t.Errorf("use case %d: %v", i, err)
			}
		case i%3 == 1 && !errors.Is(err, errBoom):
			t.Errorf("use case %d: %v, want boom", i, err)
		case i%3 == 2 && i%2 == 0 && (err == nil || !strings.HasPrefix(err.Error(), "panic")):
			t.Errorf("use case %d: %v, want the panic re-raised", i, err)
		case i%3 == 2 && i%2 == 1 && kyc.ErrorCode(err) != kyc.EConflict:
			t.Errorf("use case %d: %v, want CONFLICT", i, err)
		}
	}
	list, total, err := s.FindApplicants(t.Context(), org.ID, kyc.Sandbox, kyc.ApplicantFilter{Page: 1, Size: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if total != want || len(list) != want {
		t.Fatalf("%d applicants kept, want %d", total, want)
	}
	for _, a := range list {
		var i int
		fmt.Sscanf(a.FirstName, "n%d", &i)
		if i%3 != 0 {
			t.Errorf("applicant of failed use case %d was kept", i)
		}
	}
}

func TestInTxAfterClose(t *testing.T) {
	s, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "k.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.InTx(t.Context(), func(*store.Tx) error { return nil }); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("InTx after Close = %v", err)
	}
}

func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	now := storetest.Clock{}
	for range 10000 {
		id := store.NewULID(now.Now())
		if id <= prev || !kyc.ValidULID(id) {
			t.Fatalf("ULID %s after %s: not increasing or not canonical", id, prev)
		}
		prev = id
		p := store.NewPublicID("app_")
		if seen[p] {
			t.Fatalf("public id %s repeated", p)
		}
		seen[p] = true
		if k, canon := kyc.ClassifyID("app_", p); k != kyc.IDPublic || canon != p {
			t.Fatalf("public id %s not recognised", p)
		}
	}
	if s := store.NewSecret(kyc.SecretLen); len(s) != 43 {
		t.Fatalf("secret length %d", len(s))
	}
}

// TestWALStaysBounded writes steadily while the checkpointer runs: the WAL
// must restart instead of growing with every commit. Without the commit
// loop finishing checkpoints, 4,000 commits of this size leave a WAL of
// about 90 MiB.
func TestWALStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kyc.db")
	s, err := store.Open(t.Context(), path, store.Options{CheckpointEvery: 5 * time.Millisecond, MasterKey: storetest.MasterKey})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	org := storetest.MustOrg(t, s, "wal", nil)
	var maxWAL int64
	for i := range 4000 {
		err := s.InTx(t.Context(), func(tx *store.Tx) error {
			first, last := "Steady", fmt.Sprint("Writer", i)
			_, err := tx.CreateApplicant(org.ID, kyc.Sandbox, &kyc.ApplicantInput{FirstName: &first, LastName: &last})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path + "-wal"); err == nil {
			maxWAL = max(maxWAL, fi.Size())
		}
	}
	if st := s.Stats(); st.WALRestarts == 0 || maxWAL > 24<<20 {
		t.Fatalf("WAL reached %.1f MiB with %d restarts; want it bounded near 16 MiB", float64(maxWAL)/(1<<20), st.WALRestarts)
	}
	t.Logf("WAL at most %.1f MiB over 4,000 commits, %d restarts", float64(maxWAL)/(1<<20), s.Stats().WALRestarts)
}
